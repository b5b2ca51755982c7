// A HogQL query's shape: its text with every number and string literal replaced by `0` and
// `''`. Queries that differ only in their constants (dates, ids, thresholds written into the
// text) have one shape, so one WASM parse (tens of milliseconds) serves them all: the shape's
// tree with each literal's constant put back and every position moved to the original text.
// Sound by construction and checked: a literal is only a letter-free run of digits or a
// quoted string, the lexer's tokens, and the shape's tree is used only when each literal is
// exactly one Constant node of it (a literal the grammar reads otherwise, as
// `interval '7 day'`, a negative number folded into its constant, or an alias in quotes,
// leaves the tree unused and the text is parsed as it is). Pure: text in, text and trees out.

/** A literal of the text: where it is (code points) in the original and in the shape. */
export interface Literal {
  text: string;
  /** Its line (from 1): a literal spans none (one holding a line break is not shaped). */
  line: number;
  /** Its UTF-8 length: the parser's end columns count the last token's bytes. */
  bytes: number;
  start: number;
  end: number;
  shapeStart: number;
  shapeEnd: number;
}

export interface Shape {
  /** The text with its literals replaced. */
  key: string;
  literals: Literal[];
}

const isIdent = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_$]/u.test(c);
const NUMBER = /^[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/;

/**
 * The shape of a query's text, or null when there is nothing to gain (no literal) or the
 * text holds what this lexer does not read (template strings).
 */
export function literalShape(source: string): Shape | null {
  const cps = Array.from(source);
  const out: string[] = [];
  const literals: Literal[] = [];
  let shapeLength = 0;
  const copy = (from: number, to: number) => {
    // Line breaks past the first code point (that one is counted where the scan stands).
    for (let k = from; k < to; k++) {
      out.push(cps[k]);
      if (k > from && cps[k] === '\n') line++;
    }
    shapeLength += to - from;
  };
  const closing = (i: number, quote: string): number => {
    for (let k = i + 1; k < cps.length; k++) {
      if (cps[k] === '\\') k++;
      else if (cps[k] === quote) {
        if (cps[k + 1] === quote) k++;
        else return k + 1;
      }
    }
    return -1;
  };
  let i = 0;
  let line = 1;
  while (i < cps.length) {
    const c = cps[i];
    const next = cps[i + 1];
    if (c === '\n') line++;
    if (c === '-' && next === '-') {
      let k = i;
      while (k < cps.length && cps[k] !== '\n') k++;
      copy(i, k);
      i = k;
    } else if (c === '/' && next === '*') {
      let k = i + 2;
      while (k < cps.length && !(cps[k] === '*' && cps[k + 1] === '/')) k++;
      k = Math.min(cps.length, k + 2);
      copy(i, k);
      i = k;
    } else if (c === "'") {
      if ((cps[i - 1] === 'f' || cps[i - 1] === 'F') && !isIdent(cps[i - 2])) return null;
      const k = closing(i, "'");
      if (k === -1) return null;
      const text = cps.slice(i, k).join('');
      if (/[\n\r]/.test(text)) return null;
      literals.push({ text, line, bytes: Buffer.byteLength(text, 'utf8'), start: i, end: k, shapeStart: shapeLength, shapeEnd: shapeLength + 2 });
      out.push("''");
      shapeLength += 2;
      i = k;
    } else if (c === '"' || c === '`') {
      const k = closing(i, c);
      if (k === -1) return null;
      copy(i, k);
      i = k;
    } else if (isIdent(c)) {
      let k = i;
      while (k < cps.length && isIdent(cps[k])) k++;
      const number = c >= '0' && c <= '9' && cps[i - 1] !== '.' ? NUMBER.exec(cps.slice(i, Math.min(cps.length, k + 64)).join('')) : null;
      const end = number ? i + number[0].length : -1;
      // A number stands alone: not a tuple index (`t.1`), nor the start of a word (`0x1F`, `1d`).
      if (number && !isIdent(cps[end]) && cps[end] !== '.') {
        literals.push({ text: number[0], line, bytes: number[0].length, start: i, end, shapeStart: shapeLength, shapeEnd: shapeLength + 1 });
        out.push('0');
        shapeLength += 1;
        i = end;
      } else {
        copy(i, k);
        i = k;
      }
    } else {
      copy(i, i + 1);
      i++;
    }
  }
  return literals.length === 0 ? null : { key: out.join(''), literals };
}

interface Position {
  offset: number;
  line: number;
  column: number;
}

type Tree = { [key: string]: unknown };

const isPosition = (x: unknown): x is Position => typeof x === 'object' && x !== null && typeof (x as Position).offset === 'number' && typeof (x as Position).line === 'number';

/**
 * The original text's tree from its shape's (`tree`, the parser's JSON with positions) and
 * its literals' constants (`constants[i]`, the parser's Constant of literal i, positions
 * aside); null when a literal is not exactly one Constant of the tree.
 */
export function treeWithLiterals(tree: Tree, shape: Shape, constants: readonly Tree[]): Tree | null {
  const byShapeStart = new Map(shape.literals.map((l, i) => [l.shapeStart, i]));
  const used = new Uint8Array(shape.literals.length);
  let ok = true;
  // A position of the shape's tree in the text: literals before it on its line move its
  // column by their length change (code points); one ending there, by its bytes (the
  // parser's end columns count the last token's bytes). Lines do not move.
  const moved = (p: Position): Position => {
    let offset = p.offset;
    let column = p.column;
    for (const l of shape.literals) {
      if (l.shapeEnd > p.offset) {
        if (l.shapeStart < p.offset) ok = false;
        break;
      }
      const change = (l.end - l.start) - (l.shapeEnd - l.shapeStart);
      offset += change;
      if (l.line === p.line) column += change;
      if (l.shapeEnd === p.offset) column += l.bytes - (l.end - l.start);
    }
    return { ...p, offset, column };
  };
  const walk = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(walk);
    if (typeof x !== 'object' || x === null) return x;
    const node = x as Tree;
    if (node.node === 'Constant' && isPosition(node.start) && isPosition(node.end)) {
      const i = byShapeStart.get(node.start.offset);
      if (i !== undefined && shape.literals[i].shapeEnd === node.end.offset) {
        if (used[i]) ok = false;
        used[i] = 1;
        return { ...constants[i], start: moved(node.start), end: moved(node.end) };
      }
    }
    const out: Tree = {};
    for (const [k, v] of Object.entries(node)) out[k] = isPosition(v) ? moved(v) : walk(v);
    return out;
  };
  const result = walk(tree) as Tree;
  return ok && used.every((u) => u === 1) ? result : null;
}
