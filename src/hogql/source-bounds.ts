// Bounds a Hog or HogQL source must keep before the parser sees it (docs/decisions/0039).
// The WASM parser's time grows steeply with nesting (400 nested parentheses kept it busy for
// minutes), so the nesting is measured first, in one linear pass that counts parentheses,
// brackets and braces outside strings and comments, with f-strings' `{…}` parts counted as
// code. Pure: text in, a number out.

/** The deepest nesting of (), [] and {} the parser is given. Hand-written code rarely passes 10. */
export const MAX_SOURCE_DEPTH = 32;
/** The longest source the parser is given, in UTF-8 bytes (a hog function's code has its own, smaller, limit). */
export const MAX_SOURCE_BYTES = 1024 * 1024;

/**
 * The parse failure of a text nested past either parser's stack: chains of thousands of
 * operators (`1+1+…`, `not not …`), which the nesting bound does not count. The WASM parser
 * traps on them after seconds (~2,000 levels); the fast parser's stack ends at a few
 * thousand, so a text it overflows on is answered with this at once.
 */
export const TOO_DEEP_TO_PARSE = 'The source nests too deeply to parse: split long chains of operators or nested calls';

export class SourceLimitError extends Error {
  constructor(readonly kind: 'depth' | 'size', readonly value: number, readonly max: number) {
    super(kind === 'depth'
      ? `nests parentheses, brackets and braces ${value} levels deep; at most ${max} are accepted`
      : `is ${value} bytes long; at most ${max} are accepted`);
    this.name = 'SourceLimitError';
  }
}

const isWordChar = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const QUOTES = new Set([39 /* ' */, 34 /* " */, 96 /* ` */]);

// Where the scan stands: in code, in an f-string's text (closed by `quote`, or never for a
// template), or in code inside an f-string's braces (which ends at the brace that opened it).
type Frame = { kind: 'text'; quote: number | null } | { kind: 'code'; closesAt: number | null };

/**
 * The deepest nesting in `source`. `template`: the source is text with `{expression}`
 * parts (an input template), not code.
 */
export function nestingDepth(source: string, template = false): number {
  const frames: Frame[] = [template ? { kind: 'text', quote: null } : { kind: 'code', closesAt: null }];
  let depth = 0;
  let deepest = 0;
  const open = () => {
    depth++;
    if (depth > deepest) deepest = depth;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    const frame = frames[frames.length - 1];
    if (frame.kind === 'text') {
      if (c === 92 /* \ */) i++;
      else if (frame.quote !== null && c === frame.quote) frames.pop();
      else if (c === 123 /* { */) {
        open();
        frames.push({ kind: 'code', closesAt: depth });
      }
      continue;
    }
    const next = source.charCodeAt(i + 1);
    if (QUOTES.has(c)) {
      const prev = i > 0 ? source.charCodeAt(i - 1) : 0;
      const beforePrev = i > 1 ? source.charCodeAt(i - 2) : 0;
      // f'…' and F'…' are f-strings: their braces hold code.
      if (c === 39 && (prev === 102 || prev === 70) && !isWordChar(beforePrev)) {
        frames.push({ kind: 'text', quote: c });
        continue;
      }
      for (i++; i < source.length; i++) {
        const d = source.charCodeAt(i);
        if (d === 92) i++;
        else if (d === c) break;
      }
    } else if ((c === 47 && next === 47) || (c === 45 && next === 45)) {
      while (i < source.length && source.charCodeAt(i) !== 10) i++;
    } else if (c === 47 && next === 42) {
      const end = source.indexOf('*/', i + 2);
      i = end === -1 ? source.length : end + 1;
    } else if (c === 40 || c === 91 || c === 123) {
      open();
    } else if (c === 41 || c === 93 || c === 125) {
      if (c === 125 && frame.closesAt === depth) frames.pop();
      if (depth > 0) depth--;
    }
  }
  return deepest;
}

/** Throws SourceLimitError when `source` is past the parser's bounds. */
export function checkSource(source: string, template = false): void {
  if (source.length > MAX_SOURCE_BYTES || Buffer.byteLength(source, 'utf8') > MAX_SOURCE_BYTES) {
    throw new SourceLimitError('size', Buffer.byteLength(source, 'utf8'), MAX_SOURCE_BYTES);
  }
  const depth = nestingDepth(source, template);
  if (depth > MAX_SOURCE_DEPTH) throw new SourceLimitError('depth', depth, MAX_SOURCE_DEPTH);
}
