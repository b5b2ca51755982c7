// Text in the PDF's standard fonts (Helvetica, Helvetica-Bold; PDF readers supply
// them, nothing is embedded): WinAnsiEncoding bytes, and advance widths to fit table
// cells. The widths are those of Liberation Sans, which is metric-compatible with
// Arial and so with Helvetica, measured per WinAnsi code 32–255 in 1/1000 em.

const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584, 0,
  556, 0, 222, 556, 333, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,
  0, 222, 222, 333, 333, 350, 556, 1000, 333, 1000, 500, 333, 944, 0, 500, 667,
  278, 333, 556, 556, 556, 556, 260, 556, 333, 737, 370, 556, 584, 333, 737, 552,
  400, 549, 333, 333, 333, 576, 537, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  667, 667, 667, 667, 667, 667, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  556, 556, 556, 556, 556, 556, 889, 500, 556, 556, 556, 556, 278, 278, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 549, 611, 556, 556, 556, 556, 500, 556, 500,
];

const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
  975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
  333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
  611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, 0,
  556, 0, 278, 556, 500, 1000, 556, 556, 333, 1000, 667, 333, 1000, 0, 611, 0,
  0, 278, 278, 500, 500, 350, 556, 1000, 333, 1000, 556, 333, 944, 0, 500, 667,
  278, 333, 556, 556, 556, 556, 280, 556, 333, 737, 370, 556, 584, 333, 737, 552,
  400, 549, 333, 333, 333, 576, 556, 278, 333, 333, 365, 556, 834, 834, 834, 611,
  722, 722, 722, 722, 722, 722, 1000, 722, 667, 667, 667, 667, 278, 278, 278, 278,
  722, 722, 778, 778, 778, 778, 778, 584, 778, 722, 722, 722, 722, 667, 667, 611,
  556, 556, 556, 556, 556, 556, 889, 556, 556, 556, 556, 556, 278, 278, 278, 278,
  611, 611, 611, 611, 611, 611, 611, 549, 611, 611, 611, 611, 611, 556, 611, 556,
];

// WinAnsiEncoding (Windows-1252) puts these characters at 0x80–0x9F; 0x20–0x7E and
// 0xA0–0xFF are Latin-1.
const HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];
const HIGH_BYTE = new Map<number, number>(HIGH.flatMap((cp, i) => (cp ? [[cp, 0x80 + i] as [number, number]] : [])));

// A character outside WinAnsi (CJK, emoji, …) prints as "?".
export function winAnsi(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if ((cp >= 0x20 && cp < 0x7f) || (cp >= 0xa0 && cp <= 0xff)) out.push(cp);
    else out.push(HIGH_BYTE.get(cp) ?? (cp === 0x09 || cp === 0x0a || cp === 0x0d ? 0x20 : 0x3f));
  }
  return Uint8Array.from(out);
}

export type Face = 'regular' | 'bold';

export function textWidth(bytes: Uint8Array, face: Face, size: number): number {
  const table = face === 'bold' ? BOLD : REGULAR;
  let units = 0;
  for (const b of bytes) units += table[b - 32] ?? 0;
  return (units * size) / 1000;
}

const ELLIPSIS = 0x85;

// The longest prefix that fits `width`, ending in an ellipsis when cut.
export function fitText(text: string, face: Face, size: number, width: number): Uint8Array {
  const bytes = winAnsi(text);
  if (textWidth(bytes, face, size) <= width) return bytes;
  const table = face === 'bold' ? BOLD : REGULAR;
  let room = (width * 1000) / size - table[ELLIPSIS - 32];
  let n = 0;
  while (n < bytes.length && room - table[bytes[n] - 32] >= 0) room -= table[bytes[n++] - 32];
  return Uint8Array.from([...bytes.subarray(0, n), ELLIPSIS]);
}
