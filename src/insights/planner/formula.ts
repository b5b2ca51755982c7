// Trends formulas ("A + B", "(A / B) * 100"): letters name series in order (A is the first),
// numbers are constants, + - * / % and parentheses combine them point by point. A division
// or remainder by zero gives 0, as in PostHog. Parsed here, never evaluated as code.
import { QueryError } from './errors.js';

type Node =
  | { k: 'num'; v: number }
  | { k: 'ref'; i: number }
  | { k: 'neg'; a: Node }
  | { k: 'bin'; op: '+' | '-' | '*' | '/' | '%'; a: Node; b: Node };

const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z])|([-+*/%()]))/y;
const BLANK_TO_END = /\s*$/y;
// A formula is parsed and evaluated recursively: its size and nesting are bounded first.
const MAX_TOKENS = 1000;
const MAX_NESTING = 32;

function tokenize(formula: string): string[] {
  const out: string[] = [];
  let at = 0;
  while (at < formula.length) {
    BLANK_TO_END.lastIndex = at;
    if (BLANK_TO_END.test(formula)) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(formula);
    if (!m) throw new QueryError(`Invalid formula "${formula}"`, 'trendsFilter.formula');
    out.push(m[1] ?? m[2] ?? m[3]);
    if (out.length > MAX_TOKENS) throw new QueryError(`A formula may hold at most ${MAX_TOKENS} numbers, series and operators`, 'trendsFilter.formula');
    at = TOKEN.lastIndex;
  }
  return out;
}

/** A parsed formula over `seriesCount` series. */
export function parseFormula(formula: string, seriesCount: number): Node {
  const tokens = tokenize(formula);
  let i = 0;
  let depth = 0;
  const fail = (): never => {
    throw new QueryError(`Invalid formula "${formula}"`, 'trendsFilter.formula');
  };
  const deeper = () => {
    if (++depth > MAX_NESTING) throw new QueryError(`A formula may nest parentheses and signs at most ${MAX_NESTING} levels deep`, 'trendsFilter.formula');
  };
  const primary = (): Node => {
    const t = tokens[i++];
    if (t === undefined) return fail();
    if (t === '(' || t === '-' || t === '+') deeper();
    let node: Node;
    if (t === '(') {
      node = sum();
      if (tokens[i++] !== ')') fail();
    } else if (t === '-') {
      node = { k: 'neg', a: primary() };
    } else if (t === '+') {
      node = primary();
    } else {
      return leaf(t);
    }
    depth--;
    return node;
  };
  const leaf = (t: string): Node => {
    if (/^[A-Za-z]$/.test(t)) {
      const index = t.toUpperCase().charCodeAt(0) - 65;
      if (index >= seriesCount) throw new QueryError(`Formula "${formula}" names series ${t.toUpperCase()}, but the query has ${seriesCount}`, 'trendsFilter.formula');
      return { k: 'ref', i: index };
    }
    if (/^\d/.test(t)) return { k: 'num', v: Number(t) };
    return fail();
  };
  const product = (): Node => {
    let node = primary();
    while (tokens[i] === '*' || tokens[i] === '/' || tokens[i] === '%') {
      const op = tokens[i++] as '*' | '/' | '%';
      node = { k: 'bin', op, a: node, b: primary() };
    }
    return node;
  };
  const sum = (): Node => {
    let node = product();
    while (tokens[i] === '+' || tokens[i] === '-') {
      const op = tokens[i++] as '+' | '-';
      node = { k: 'bin', op, a: node, b: product() };
    }
    return node;
  };
  const root = sum();
  if (i !== tokens.length) fail();
  return root;
}

function evalAt(node: Node, series: readonly (readonly number[])[], j: number): number {
  switch (node.k) {
    case 'num':
      return node.v;
    case 'ref':
      return series[node.i][j] ?? 0;
    case 'neg':
      return -evalAt(node.a, series, j);
    case 'bin': {
      const a = evalAt(node.a, series, j);
      const b = evalAt(node.b, series, j);
      switch (node.op) {
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return b === 0 ? 0 : a / b;
        case '%': return b === 0 ? 0 : a % b;
      }
    }
  }
}

/** The formula applied point by point to the series' data (all of one length). */
export function applyFormula(node: Node, series: readonly (readonly number[])[]): number[] {
  const length = series.reduce((n, s) => Math.max(n, s.length), 0);
  return Array.from({ length }, (_, j) => evalAt(node, series, j));
}
