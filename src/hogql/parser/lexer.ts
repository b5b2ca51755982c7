// HogQL's tokens for the fast parser (./expr.ts, ./select.ts): a subset of PostHog's lexer,
// written from the language's behaviour. Whatever this lexer is unsure of (text outside ASCII,
// f-strings, escapes other than the common ones, `//` comments, strings across lines) throws
// BAIL: the caller then gives the text to the WASM parser, so no text is read differently.
// Pure: text in, tokens out.

/** Thrown (never as an error) where the fast path gives way to the WASM parser. */
export const BAIL = { bail: true } as const;

export type TokenKind = 'word' | 'quoted' | 'number' | 'string' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** A word's, number's or punctuation's text; a string's or quoted identifier's value. */
  text: string;
  /** A word's text in lower case (keywords are case-insensitive). */
  lower: string;
  start: number;
  end: number;
}

const PUNCT3 = ['=~*', '!~*'];
const PUNCT2 = ['||', '==', '!=', '<>', '<=', '>=', '=~', '!~', '~*', '??', '->', '::', '?.'];
const PUNCT1 = '()[]{},.+-*/%=<>~?:;';

const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordStart = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36;
const isWord = (c: number) => isWordStart(c) || isDigit(c);
const isSpace = (c: number) => c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 11;

// Escapes read alike by PostHog's string and identifier rules (and `\\` + the quote itself);
// any other backslash bails.
const ESCAPES: Record<string, string> = { '\\': '\\', n: '\n', t: '\t', r: '\r' };

function quoted(source: string, at: number, quote: string): [string, number] {
  let value = '';
  let i = at + 1;
  for (;;) {
    if (i >= source.length) throw BAIL;
    const c = source[i];
    if (c === '\n' || c === '\r') throw BAIL;
    if (c === '\\') {
      // Quoted identifiers: their escapes are not known here.
      if (quote !== "'") throw BAIL;
      const e = source[i + 1] === quote ? quote : ESCAPES[source[i + 1]];
      if (e === undefined) throw BAIL;
      value += e;
      i += 2;
    } else if (c === quote) {
      if (source[i + 1] === quote) {
        value += quote;
        i += 2;
      } else return [value, i + 1];
    } else {
      value += c;
      i++;
    }
  }
}

const NUMBER = /(?:0[xX][0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)/y;

const NON_ASCII = /[^\x00-\x7f]/;

export function tokenize(source: string): Token[] {
  // The WASM parser's columns count UTF-8 bytes in places, its offsets code points: ASCII only here.
  if (NON_ASCII.test(source)) throw BAIL;
  const tokens: Token[] = [];
  const n = source.length;
  let i = 0;
  const push = (kind: TokenKind, text: string, start: number, end: number, lower = text) => tokens.push({ kind, text, lower, start, end });
  while (i < n) {
    const c = source.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    const next = source.charCodeAt(i + 1);
    if (c === 45 && next === 45) { // -- comment
      while (i < n && source.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 47 && next === 42) { // /* comment */
      const end = source.indexOf('*/', i + 2);
      if (end === -1) throw BAIL;
      i = end + 2;
      continue;
    }
    if (c === 47 && next === 47) throw BAIL;
    const prev = tokens.length > 0 ? tokens[tokens.length - 1] : null;
    // After `.` a number is a tuple index (`t.1.2`): its digits alone.
    if (isDigit(c) && prev !== null && prev.kind === 'punct' && prev.text === '.' && prev.end === i) {
      let k = i;
      while (k < n && isDigit(source.charCodeAt(k))) k++;
      if (k < n && (isWord(source.charCodeAt(k)))) throw BAIL;
      push('number', source.slice(i, k), i, k);
      i = k;
      continue;
    }
    const valueBefore = prev !== null && (prev.kind === 'word' || prev.kind === 'quoted' || prev.kind === 'number' || (prev.kind === 'punct' && (prev.text === ')' || prev.text === ']')));
    if (isDigit(c) || (c === 46 && isDigit(next) && !valueBefore)) {
      NUMBER.lastIndex = i;
      const m = NUMBER.exec(source);
      if (m === null) throw BAIL;
      const k = i + m[0].length;
      // `1d`, `0x1Fg`, `1.2.3`: words and chains this lexer does not read.
      if (k < n && (isWord(source.charCodeAt(k)) || source.charCodeAt(k) === 46)) throw BAIL;
      push('number', m[0], i, k);
      i = k;
      continue;
    }
    if (isWordStart(c)) {
      let k = i + 1;
      while (k < n && isWord(source.charCodeAt(k))) k++;
      // f'…' template strings, and words run into a quote.
      if (k < n && (source[k] === "'")) throw BAIL;
      const text = source.slice(i, k);
      push('word', text, i, k, text.toLowerCase());
      i = k;
      continue;
    }
    if (c === 39) {
      const [value, k] = quoted(source, i, "'");
      push('string', value, i, k);
      i = k;
      continue;
    }
    if (c === 34 || c === 96) {
      const [value, k] = quoted(source, i, source[i]);
      if (value === '') throw BAIL;
      push('quoted', value, i, k, value);
      i = k;
      continue;
    }
    const three = source.slice(i, i + 3);
    if (PUNCT3.includes(three)) {
      push('punct', three, i, i + 3);
      i += 3;
      continue;
    }
    const two = source.slice(i, i + 2);
    if (PUNCT2.includes(two)) {
      push('punct', two, i, i + 2);
      i += 2;
      continue;
    }
    if (PUNCT1.includes(source[i])) {
      push('punct', source[i], i, i + 1);
      i++;
      continue;
    }
    throw BAIL;
  }
  tokens.push({ kind: 'eof', text: '', lower: '', start: n, end: n });
  return tokens;
}
