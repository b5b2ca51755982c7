// The PDF file structure (ISO 32000-1 §7.5): header, numbered indirect objects, a
// cross-reference table giving each object's byte offset, and a trailer naming the
// catalog. Every stream is Flate-compressed here.
import { deflateSync } from 'node:zlib';

export type PdfObject = { dict: string } | { dict: string; stream: Uint8Array };

// Objects are numbered in the order they are added, from 1; `ref(n)` names one.
export const ref = (n: number) => `${n} 0 R`;

// A PDF literal string of bytes: parentheses and backslashes escaped, bytes outside
// printable ASCII written in octal so the file stays 7-bit in its text parts.
export function literal(bytes: Uint8Array): string {
  let out = '(';
  for (const b of bytes) {
    if (b === 0x28 || b === 0x29 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b < 0x20 || b > 0x7e) out += '\\' + b.toString(8).padStart(3, '0');
    else out += String.fromCharCode(b);
  }
  return out + ')';
}

// A text string for the document information dictionary: UTF-16BE with its byte order mark.
export function textString(s: string): string {
  let hex = 'FEFF';
  for (let i = 0; i < s.length; i++) hex += s.charCodeAt(i).toString(16).padStart(4, '0').toUpperCase();
  return `<${hex}>`;
}

export function pdfFile(objects: PdfObject[], catalog: number, info: number): Uint8Array {
  // The comment of high bytes marks the file as binary for transfer tools.
  const chunks: Buffer[] = [Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = chunks[0].length;
  const offsets: number[] = [];
  const push = (b: Buffer) => { chunks.push(b); length += b.length; };
  objects.forEach((obj, i) => {
    offsets.push(length);
    if (!('stream' in obj)) {
      push(Buffer.from(`${i + 1} 0 obj\n${obj.dict}\nendobj\n`, 'latin1'));
      return;
    }
    const data = deflateSync(obj.stream);
    const dict = obj.dict.replace(/>>\s*$/, `/Length ${data.length} /Filter /FlateDecode >>`);
    push(Buffer.from(`${i + 1} 0 obj\n${dict}\nstream\n`, 'latin1'));
    push(data);
    push(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  });
  const xref = length;
  let table = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) table += `${String(offset).padStart(10, '0')} 00000 n \n`;
  table += `trailer\n<< /Size ${objects.length + 1} /Root ${ref(catalog)} /Info ${ref(info)} >>\nstartxref\n${xref}\n%%EOF\n`;
  push(Buffer.from(table, 'latin1'));
  return Buffer.concat(chunks);
}
