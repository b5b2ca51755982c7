// Advance widths from a TrueType file (tables head, hhea, hmtx, cmap), so chart layout
// measures text with the font resvg will draw it in: ECharts places labels, hides the
// ones that would overlap and truncates with an ellipsis by these widths. Kerning is
// ignored (it only narrows text), so a measured label is never shorter than drawn. A
// character the font lacks counts one em: the ones that go missing are mostly CJK, which
// are that wide, and ECharts takes a line's height from the width of "国".

export interface FontMetrics {
  // Width of `text` at `sizePx`, in pixels.
  width(text: string, sizePx: number): number;
}

interface TableRecord {
  offset: number;
  length: number;
}

function tables(font: Buffer): Map<string, TableRecord> {
  const count = font.readUInt16BE(4);
  const out = new Map<string, TableRecord>();
  for (let i = 0; i < count; i++) {
    const at = 12 + i * 16;
    out.set(font.toString('latin1', at, at + 4), { offset: font.readUInt32BE(at + 8), length: font.readUInt32BE(at + 12) });
  }
  return out;
}

function need(all: Map<string, TableRecord>, tag: string): TableRecord {
  const t = all.get(tag);
  if (!t) throw new Error(`font has no ${tag} table`);
  return t;
}

// Code point → glyph id, from the Unicode subtable (format 12 when present, else 4).
function readCmap(font: Buffer, cmap: TableRecord): (cp: number) => number {
  const n = font.readUInt16BE(cmap.offset + 2);
  let format4 = -1;
  let format12 = -1;
  for (let i = 0; i < n; i++) {
    const rec = cmap.offset + 4 + i * 8;
    const platform = font.readUInt16BE(rec);
    const encoding = font.readUInt16BE(rec + 2);
    const sub = cmap.offset + font.readUInt32BE(rec + 4);
    const unicode = platform === 0 || (platform === 3 && (encoding === 1 || encoding === 10));
    if (!unicode) continue;
    const format = font.readUInt16BE(sub);
    if (format === 12) format12 = sub;
    else if (format === 4) format4 = sub;
  }
  if (format12 >= 0) {
    const groups = font.readUInt32BE(format12 + 12);
    return (cp) => {
      let lo = 0;
      let hi = groups - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const g = format12 + 16 + mid * 12;
        const start = font.readUInt32BE(g);
        const end = font.readUInt32BE(g + 4);
        if (cp < start) hi = mid - 1;
        else if (cp > end) lo = mid + 1;
        else return font.readUInt32BE(g + 8) + (cp - start);
      }
      return 0;
    };
  }
  if (format4 < 0) throw new Error('font has no Unicode cmap subtable');
  const segX2 = font.readUInt16BE(format4 + 6);
  const ends = format4 + 14;
  const starts = ends + segX2 + 2;
  const deltas = starts + segX2;
  const rangeOffsets = deltas + segX2;
  return (cp) => {
    if (cp > 0xffff) return 0;
    for (let s = 0; s < segX2; s += 2) {
      if (cp > font.readUInt16BE(ends + s)) continue;
      const start = font.readUInt16BE(starts + s);
      if (cp < start) return 0;
      const delta = font.readInt16BE(deltas + s);
      const ro = font.readUInt16BE(rangeOffsets + s);
      if (ro === 0) return (cp + delta) & 0xffff;
      const glyph = font.readUInt16BE(rangeOffsets + s + ro + (cp - start) * 2);
      return glyph === 0 ? 0 : (glyph + delta) & 0xffff;
    }
    return 0;
  };
}

export function readFontMetrics(font: Buffer): FontMetrics {
  const all = tables(font);
  const unitsPerEm = font.readUInt16BE(need(all, 'head').offset + 18);
  const longMetrics = font.readUInt16BE(need(all, 'hhea').offset + 34);
  const hmtx = need(all, 'hmtx').offset;
  const glyphOf = readCmap(font, need(all, 'cmap'));
  const advance = (glyph: number) => (glyph === 0 ? unitsPerEm : font.readUInt16BE(hmtx + Math.min(glyph, longMetrics - 1) * 4));
  // Latin text dominates labels: its widths are looked up once.
  const ascii = new Float64Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = advance(glyphOf(c)) / unitsPerEm;
  const other = new Map<number, number>();
  return {
    width(text, sizePx) {
      let em = 0;
      for (const ch of text) {
        const cp = ch.codePointAt(0)!;
        if (cp < 128) em += ascii[cp];
        else {
          let w = other.get(cp);
          if (w === undefined) other.set(cp, (w = advance(glyphOf(cp)) / unitsPerEm));
          em += w;
        }
      }
      return em * sizePx;
    },
  };
}
