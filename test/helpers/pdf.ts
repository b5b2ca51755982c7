// A PDF reader for tests, written from the format (ISO 32000-1 §7), sharing no code with
// the writer: it follows startxref to the cross-reference table, checks that every
// in-use entry points at its "n 0 obj", parses objects, inflates Flate streams, walks the
// page tree from the trailer's /Root, and pulls each page's text (Tj strings) and images.
import { inflateSync } from 'node:zlib';

export type PdfValue = number | string | boolean | null | PdfName | PdfRef | PdfValue[] | PdfDict | PdfStream;
export class PdfName { constructor(readonly name: string) {} }
export class PdfRef { constructor(readonly num: number) {} }
export type PdfDict = Map<string, PdfValue>;
export interface PdfStream { dict: PdfDict; data: Buffer }

export interface PdfPage {
  mediaBox: number[];
  content: string;
  texts: string[];
  images: { width: number; height: number; colorSpace: string; bitsPerComponent: number; data: Buffer }[];
}

export interface ParsedPdf {
  version: string;
  objects: Map<number, PdfValue>;
  trailer: PdfDict;
  info: PdfDict;
  pages: PdfPage[];
}

const WHITE = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([...'()<>[]{}/%'].map((c) => c.charCodeAt(0)));

class Parser {
  constructor(private readonly buf: Buffer, public at: number) {}

  skip(): void {
    for (;;) {
      while (this.at < this.buf.length && WHITE.has(this.buf[this.at])) this.at++;
      if (this.buf[this.at] !== 0x25) return; // %comment
      while (this.at < this.buf.length && this.buf[this.at] !== 0x0a && this.buf[this.at] !== 0x0d) this.at++;
    }
  }

  word(): string {
    this.skip();
    const start = this.at;
    while (this.at < this.buf.length && !WHITE.has(this.buf[this.at]) && !DELIM.has(this.buf[this.at])) this.at++;
    return this.buf.toString('latin1', start, this.at);
  }

  expect(word: string): void {
    const got = this.word();
    if (got !== word) throw new Error(`expected "${word}" at ${this.at}, got "${got}"`);
  }

  value(): PdfValue {
    this.skip();
    const c = this.buf[this.at];
    if (c === 0x2f) { // /Name
      this.at++;
      const start = this.at;
      while (this.at < this.buf.length && !WHITE.has(this.buf[this.at]) && !DELIM.has(this.buf[this.at])) this.at++;
      return new PdfName(this.buf.toString('latin1', start, this.at));
    }
    if (c === 0x28) return this.literal();
    if (c === 0x3c && this.buf[this.at + 1] === 0x3c) return this.dict();
    if (c === 0x3c) { // <hex>
      const end = this.buf.indexOf(0x3e, this.at);
      const hex = this.buf.toString('latin1', this.at + 1, end).replace(/\s/g, '');
      this.at = end + 1;
      return Buffer.from(hex, 'hex').toString('latin1');
    }
    if (c === 0x5b) { // [array]
      this.at++;
      const out: PdfValue[] = [];
      for (;;) {
        this.skip();
        if (this.buf[this.at] === 0x5d) { this.at++; return out; }
        out.push(this.value());
      }
    }
    const w = this.word();
    if (w === 'true' || w === 'false') return w === 'true';
    if (w === 'null') return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) throw new Error(`unexpected token "${w}" at ${this.at}`);
    // "n g R" is a reference.
    const save = this.at;
    const gen = this.word();
    const r = this.word();
    if (/^\d+$/.test(w) && /^\d+$/.test(gen) && r === 'R') return new PdfRef(Number(w));
    this.at = save;
    return Number(w);
  }

  dict(): PdfDict {
    this.skip();
    if (this.buf.toString('latin1', this.at, this.at + 2) !== '<<') throw new Error(`expected a dictionary at ${this.at}`);
    this.at += 2;
    const out: PdfDict = new Map();
    for (;;) {
      this.skip();
      if (this.buf[this.at] === 0x3e && this.buf[this.at + 1] === 0x3e) { this.at += 2; return out; }
      const key = this.value();
      if (!(key instanceof PdfName)) throw new Error(`dictionary key is not a name at ${this.at}`);
      out.set(key.name, this.value());
    }
  }

  literal(): string {
    this.at++;
    let depth = 1;
    const out: number[] = [];
    for (;;) {
      const c = this.buf[this.at++];
      if (c === undefined) throw new Error('unterminated string');
      if (c === 0x5c) {
        const e = this.buf[this.at++];
        const simple: Record<number, number> = { 0x6e: 10, 0x72: 13, 0x74: 9, 0x62: 8, 0x66: 12, 0x28: 0x28, 0x29: 0x29, 0x5c: 0x5c };
        if (simple[e] !== undefined) out.push(simple[e]);
        else if (e >= 0x30 && e <= 0x37) {
          let oct = String.fromCharCode(e);
          while (oct.length < 3 && this.buf[this.at] >= 0x30 && this.buf[this.at] <= 0x37) oct += String.fromCharCode(this.buf[this.at++]);
          out.push(parseInt(oct, 8) & 0xff);
        }
        continue;
      }
      if (c === 0x28) depth++;
      if (c === 0x29 && --depth === 0) return Buffer.from(out).toString('latin1');
      out.push(c);
    }
  }
}

// WinAnsiEncoding bytes 0x80–0x9F that tests print (the rest of WinAnsi is Latin-1).
const WIN_ANSI_HIGH: Record<number, string> = { 0x85: '…', 0x96: '–', 0x97: '—', 0x91: '‘', 0x92: '’', 0x93: '“', 0x94: '”', 0x80: '€', 0x95: '•' };
export const fromWinAnsi = (s: string) => [...s].map((ch) => WIN_ANSI_HIGH[ch.charCodeAt(0)] ?? ch).join('');

export function readPdf(bytes: Uint8Array): ParsedPdf {
  const buf = Buffer.from(bytes);
  const head = /^%PDF-(\d\.\d)/.exec(buf.toString('latin1', 0, 16));
  if (!head) throw new Error('no %PDF header');
  const tail = buf.toString('latin1', Math.max(0, buf.length - 64));
  const sx = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!sx) throw new Error('no startxref / %%EOF at the end');
  const p = new Parser(buf, Number(sx[1]));
  p.expect('xref');
  const first = Number(p.word());
  const count = Number(p.word());
  p.skip();
  const offsets = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const entry = buf.toString('latin1', p.at, p.at + 20);
    const m = /^(\d{10}) (\d{5}) ([nf])[ \r][\r\n]$/.exec(entry);
    if (!m) throw new Error(`bad xref entry ${JSON.stringify(entry)}`);
    if (m[3] === 'n') offsets.set(first + i, Number(m[1]));
    p.at += 20;
  }
  p.expect('trailer');
  const trailer = p.dict();

  const objects = new Map<number, PdfValue>();
  for (const [num, offset] of offsets) {
    const q = new Parser(buf, offset);
    if (Number(q.word()) !== num || q.word() !== '0' || q.word() !== 'obj') throw new Error(`xref entry ${num} does not point at "${num} 0 obj"`);
    let value = q.value();
    const save = q.at;
    if (q.word() === 'stream' && value instanceof Map) {
      if (buf[q.at] === 0x0d) q.at++;
      if (buf[q.at] !== 0x0a) throw new Error('stream keyword not followed by EOL');
      q.at++;
      const length = value.get('Length');
      if (typeof length !== 'number') throw new Error(`stream ${num} without a direct /Length`);
      let data = buf.subarray(q.at, q.at + length);
      q.at += length;
      q.expect('endstream');
      const filter = value.get('Filter');
      if (filter instanceof PdfName && filter.name === 'FlateDecode') data = inflateSync(data);
      else if (filter !== undefined) throw new Error(`unsupported filter in ${num}`);
      value = { dict: value, data };
    } else {
      q.at = save;
    }
    q.expect('endobj');
    objects.set(num, value);
  }

  const resolve = (v: PdfValue | undefined): PdfValue | undefined => (v instanceof PdfRef ? objects.get(v.num) : v);
  const dictOf = (v: PdfValue | undefined): PdfDict => {
    const r = resolve(v);
    if (r instanceof Map) return r;
    if (r && typeof r === 'object' && 'dict' in r) return r.dict;
    throw new Error('expected a dictionary');
  };
  const name = (v: PdfValue | undefined) => (v instanceof PdfName ? v.name : '');

  const catalog = dictOf(trailer.get('Root'));
  if (name(catalog.get('Type')) !== 'Catalog') throw new Error('/Root is not a Catalog');
  const pages: PdfPage[] = [];
  const walk = (node: PdfDict) => {
    if (name(node.get('Type')) === 'Pages') {
      for (const kid of (resolve(node.get('Kids')) as PdfValue[])) walk(dictOf(kid));
      return;
    }
    if (name(node.get('Type')) !== 'Page') throw new Error('page tree node of unknown type');
    const contents = resolve(node.get('Contents')) as PdfStream;
    const content = contents.data.toString('latin1');
    const texts: string[] = [];
    const cp = new Parser(Buffer.from(content, 'latin1'), 0);
    let operands: PdfValue[] = [];
    while (cp.at < content.length) {
      cp.skip();
      if (cp.at >= content.length) break;
      const c = content.charCodeAt(cp.at);
      if (c === 0x2f || c === 0x28 || c === 0x3c || c === 0x5b || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e) {
        operands.push(cp.value());
        continue;
      }
      const op = cp.word();
      if (op === 'Tj' && typeof operands[0] === 'string') texts.push(fromWinAnsi(operands[0]));
      operands = [];
    }
    const resources = dictOf(node.get('Resources'));
    const xobjects = resources.has('XObject') ? dictOf(resources.get('XObject')) : new Map();
    const images = [...xobjects.values()].map((ref) => {
      const s = resolve(ref) as PdfStream;
      return {
        width: s.dict.get('Width') as number, height: s.dict.get('Height') as number,
        colorSpace: name(s.dict.get('ColorSpace')), bitsPerComponent: s.dict.get('BitsPerComponent') as number, data: s.data,
      };
    });
    pages.push({ mediaBox: resolve(node.get('MediaBox')) as number[], content, texts, images });
  };
  walk(dictOf(catalog.get('Pages')));
  const pageCount = dictOf(catalog.get('Pages')).get('Count');
  if (pageCount !== pages.length) throw new Error(`/Count ${String(pageCount)} but ${pages.length} pages`);
  return { version: head[1], objects, trailer, info: trailer.has('Info') ? dictOf(trailer.get('Info')) : new Map(), pages };
}

// A UTF-16BE text string (with BOM) or a PDFDocEncoding one, as read by the parser.
export function pdfText(value: PdfValue | undefined): string {
  if (typeof value !== 'string') return '';
  if (value.startsWith('\xfe\xff')) return Buffer.from(value.slice(2), 'latin1').swap16().toString('utf16le');
  return value;
}
