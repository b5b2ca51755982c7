// HogQL expressions for the fast parser: precedence climbing over ./lexer.ts's tokens, each
// node built as @posthog/hogql-parser's JSON has it (node and field names, positions, the
// desugared forms: `a || b` a concat Call, `x ?? y` ifNull, `c ? a : b` and CASE if/multiIf,
// `interval 1 day` toIntervalDay, `-x` 0 - x, `-1` a negative Constant). Written from the
// language's behaviour and checked against the WASM parser (test/hogql/parser.test.ts); what
// it is unsure of throws BAIL and the text goes to the WASM parser. Pure.
import { BAIL, type Token } from './lexer.js';

export type Node = { [field: string]: unknown };

interface Position {
  column: number;
  line: number;
  offset: number;
}

/** A node and the text it was read from: parentheses around it widen this, not the node's positions. */
export interface Read {
  node: Node;
  start: number;
  end: number;
}

// Binding strengths, loosest first, as the WASM parser reads them: `is null` binds as the
// comparisons do (left to right), BETWEEN between NOT and `??`, its bounds at `??`'s strength.
const ALIAS = 1;
const TERNARY = 2;
const OR = 3;
const AND = 4;
const NOT = 5;
const BETWEEN = 6;
const NULLISH = 7;
const IS_NULL = 8;
const COMPARE = 8;
const ADD = 9;
const MUL = 10;
const NEGATE = 11;

/** Words the lexer reserves (from PostHog's grammar): as a name, only those below read as one. */
export const KEYWORDS = new Set(('all and anti any array as ascending asof between both by case cast cohort collate columns cross cube current date day desc ' +
  'descending distinct else end exclude extract final fill filter first following for from full group grouping having hour id if ilike ignore include in inf ' +
  'inner interpolate interval is join key lambda last leading left like limit minute month name natural nan not null nulls offset on or order outer over ' +
  'partition pivot positional preceding prewhere qualify quarter range recursive replace return right rollup row rows sample second select semi sets ' +
  'settings step substring then ties timestamp time local zone to top totals trailing trim truncate try_cast unbounded union unpivot using values week when ' +
  'where window with year asc true false fn let while try catch finally throw fun materialized').split(' '));
/**
 * Keywords that read as a plain name (common column and table names), and as a function's
 * name: the WASM parser reads nearly every keyword so where it fits; these are the ones the
 * fast path takes, checked against it (test/hogql/parser.test.ts).
 */
const NAME_OK = new Set(['id', 'name', 'key', 'date', 'timestamp', 'time', 'day', 'hour', 'minute', 'second', 'week', 'month', 'quarter', 'year', 'first', 'last', 'cohort']);
const CALL_OK = new Set(['if', 'any', 'left', 'right', 'date', 'first', 'last', 'year', 'month', 'day', 'hour', 'minute', 'second', 'week', 'quarter', 'not', 'range']);

/** Unquoted words the WASM parser refuses as an alias (an error the fast path leaves to it). */
export const RESERVED_ALIASES = new Set(['team_id', 'true', 'false', 'null']);

const COMPARE_OPS: Record<string, string> = {
  '=': '==', '==': '==', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=',
  '=~': '=~', '~': '=~', '!~': '!~', '=~*': '=~*', '~*': '=~*', '!~*': '!~*',
};
const INTERVAL_UNITS: Record<string, string> = {
  second: 'Second', minute: 'Minute', hour: 'Hour', day: 'Day', week: 'Week', month: 'Month', quarter: 'Quarter', year: 'Year',
};

export class Parser {
  i = 0;
  private readonly lineStarts: number[] = [0];

  constructor(readonly source: string, readonly tokens: Token[], readonly positions: boolean, readonly subquery: (p: Parser) => Read) {
    for (let k = 0; k < source.length; k++) if (source.charCodeAt(k) === 10) this.lineStarts.push(k + 1);
  }

  peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)];
  }

  next(): Token {
    return this.tokens[this.i++];
  }

  isWord(word: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'word' && t.lower === word;
  }

  isPunct(text: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'punct' && t.text === text;
  }

  expectPunct(text: string): Token {
    if (!this.isPunct(text)) throw BAIL;
    return this.next();
  }

  expectWord(word: string): Token {
    if (!this.isWord(word)) throw BAIL;
    return this.next();
  }

  position(offset: number): Position {
    const starts = this.lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { column: offset - starts[lo], line: lo + 1, offset };
  }

  /** `node` with its positions (when this parse keeps them). */
  at(node: Node, start: number, end: number): Node {
    if (this.positions) {
      node.start = this.position(start);
      node.end = this.position(end);
    }
    return node;
  }

  read(node: Node, start: number, end: number): Read {
    return { node: this.at(node, start, end), start, end };
  }

  /** A name: a word that is not a keyword (or one checked to read as a name), or a quoted identifier. */
  name(): string {
    const t = this.next();
    if (t.kind === 'quoted') return t.text;
    if (t.kind === 'word' && (!KEYWORDS.has(t.lower) || NAME_OK.has(t.lower))) return t.text;
    throw BAIL;
  }

  expr(min = ALIAS): Read {
    let left = this.prefix();
    for (;;) {
      const t = this.peek();
      if (t.kind === 'punct') {
        const op = t.text;
        if (op === '*' || op === '/' || op === '%') {
          if (MUL < min) break;
          this.i++;
          left = this.binary('ArithmeticOperation', op, left, this.expr(MUL + 1));
        } else if (op === '+' || op === '-') {
          if (ADD < min) break;
          this.i++;
          left = this.binary('ArithmeticOperation', op, left, this.expr(ADD + 1));
        } else if (op === '||') {
          if (ADD < min) break;
          this.i++;
          const right = this.expr(ADD + 1);
          left = this.read({ node: 'Call', name: 'concat', args: [...concatArgs(left.node), ...concatArgs(right.node)] }, left.start, right.end);
        } else if (COMPARE_OPS[op] !== undefined) {
          if (COMPARE < min) break;
          this.i++;
          left = this.binary('CompareOperation', COMPARE_OPS[op], left, this.expr(COMPARE + 1));
        } else if (op === '??') {
          if (NULLISH < min) break;
          this.i++;
          const right = this.expr(NULLISH + 1);
          left = this.read({ node: 'Call', name: 'ifNull', args: [left.node, right.node] }, left.start, right.end);
        } else if (op === '?') {
          if (TERNARY < min) break;
          this.i++;
          const then = this.expr(ALIAS);
          this.expectPunct(':');
          const otherwise = this.expr(TERNARY);
          left = this.read({ node: 'Call', name: 'if', args: [left.node, then.node, otherwise.node] }, left.start, otherwise.end);
        } else break;
      } else if (t.kind === 'word') {
        const w = t.lower;
        if (w === 'and' || w === 'or') {
          const level = w === 'and' ? AND : OR;
          if (level < min) break;
          this.i++;
          const right = this.expr(level + 1);
          const kind = w === 'and' ? 'And' : 'Or';
          left = this.read({ node: kind, exprs: [...flat(kind, left.node), ...flat(kind, right.node)] }, left.start, right.end);
        } else if (w === 'like' || w === 'ilike' || w === 'in' || (w === 'not' && (this.isWord('like', 1) || this.isWord('ilike', 1) || this.isWord('in', 1)))) {
          if (COMPARE < min) break;
          const negated = w === 'not';
          if (negated) this.i++;
          let op = this.next().lower;
          if (this.isWord('cohort')) {
            // `in cohort 5`, `not in cohort 'name'`: a cohort's id or name. Any other word after
            // `in cohort`, or none (`in cohort` names a column there), is the WASM parser's.
            const after = this.peek(1).kind;
            if (op !== 'in' || (after !== 'number' && after !== 'string')) throw BAIL;
            this.i++;
            op = 'in cohort';
          }
          left = this.binary('CompareOperation', negated ? `not ${op}` : op, left, this.expr(COMPARE + 1));
        } else if (w === 'between' || (w === 'not' && this.isWord('between', 1))) {
          if (BETWEEN < min) break;
          const negated = w === 'not';
          this.i += negated ? 2 : 1;
          const low = this.expr(BETWEEN + 1);
          this.expectWord('and');
          const high = this.expr(BETWEEN + 1);
          left = this.read({ node: 'BetweenExpr', expr: left.node, low: low.node, high: high.node, negated }, left.start, high.end);
        } else if (w === 'is') {
          if (IS_NULL < min) break;
          this.i++;
          const negated = this.isWord('not');
          if (negated) this.i++;
          const last = this.expectWord('null');
          left = this.read({ node: 'CompareOperation', op: negated ? '!=' : '==', left: left.node, right: { node: 'Constant', value: null }, is_null_comparison_style: true }, left.start, last.end);
        } else if (w === 'as') {
          if (ALIAS < min) break;
          this.i++;
          const a = this.next();
          let alias: string;
          if (a.kind === 'string' || a.kind === 'quoted') alias = a.text;
          else if (a.kind === 'word' && !RESERVED_ALIASES.has(a.lower) && (!KEYWORDS.has(a.lower) || NAME_OK.has(a.lower))) alias = a.text;
          else throw BAIL;
          left = this.read({ node: 'Alias', alias, expr: left.node }, left.start, a.end);
        } else break;
      } else break;
    }
    return left;
  }

  private binary(kind: string, op: string, left: Read, right: Read): Read {
    return this.read({ node: kind, op, left: left.node, right: right.node }, left.start, right.end);
  }

  private prefix(): Read {
    const t = this.peek();
    if (t.kind === 'word' && t.lower === 'not') {
      // `not (x)` reads as a call of `not` (a primary: `not (a) = b` compares the call).
      if (this.isPunct('(', 1)) return this.postfix(this.primary());
      this.i++;
      const operand = this.expr(NOT);
      return this.read({ node: 'Not', expr: operand.node }, t.start, operand.end);
    }
    if (t.kind === 'punct' && t.text === '-') {
      this.i++;
      const n = this.peek();
      if (n.kind === 'number') {
        this.i++;
        // A signed number is one literal.
        return this.postfix(this.read({ node: 'Constant', value: -numberValue(n.text) }, t.start, n.end));
      }
      const operand = this.expr(NEGATE);
      return this.read({ node: 'ArithmeticOperation', op: '-', left: { node: 'Constant', value: 0 }, right: operand.node }, t.start, operand.end);
    }
    return this.postfix(this.primary());
  }

  private postfix(read: Read): Read {
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'punct') return read;
      if (t.text === '[') {
        this.i++;
        const property = this.expr(ALIAS);
        const close = this.expectPunct(']');
        read = this.read({ node: 'ArrayAccess', array: read.node, property: property.node }, read.start, close.end);
      } else if (t.text === '.') {
        this.i++;
        const n = this.next();
        if (n.kind === 'number') {
          if (!/^[0-9]+$/.test(n.text)) throw BAIL;
          read = this.read({ node: 'TupleAccess', tuple: read.node, index: Number(n.text) }, read.start, n.end);
        } else if (n.kind === 'word' || n.kind === 'quoted') {
          read = this.read({ node: 'ArrayAccess', array: read.node, property: { node: 'Constant', value: n.text } }, read.start, n.end);
        } else throw BAIL;
      } else if (t.text === '(' || t.text === '?.' || t.text === '::') {
        throw BAIL;
      } else return read;
    }
  }

  private primary(): Read {
    const t = this.next();
    switch (t.kind) {
      case 'number':
        return this.read({ node: 'Constant', value: numberValue(t.text) }, t.start, t.end);
      case 'string':
        return this.read({ node: 'Constant', value: t.text }, t.start, t.end);
      case 'quoted':
        return this.chain(t);
      case 'word':
        return this.word(t);
      case 'punct':
        return this.punct(t);
      default:
        throw BAIL;
    }
  }

  private word(t: Token): Read {
    const w = t.lower;
    if (w === 'true' || w === 'false') return this.read({ node: 'Constant', value: w === 'true' }, t.start, t.end);
    if (w === 'null') return this.read({ node: 'Constant', value: null }, t.start, t.end);
    if (w === 'case') return this.caseExpr(t);
    if (w === 'interval') return this.interval(t);
    if (this.isPunct('->')) {
      // `f(a, b -> b)`: names before the arrow, after a comma, are the lambda's too.
      if (KEYWORDS.has(w) || (this.i >= 2 && this.tokens[this.i - 2].text === ',' && this.tokens[this.i - 2].kind === 'punct')) throw BAIL;
      return this.lambda([t.text], t.start);
    }
    if (this.isPunct('(')) {
      if (KEYWORDS.has(w) && !CALL_OK.has(w)) throw BAIL;
      return this.call(t);
    }
    if (KEYWORDS.has(w) && !NAME_OK.has(w)) throw BAIL;
    // `date '2024-01-01'`, `timestamp '…'`: typed literals.
    if (this.peek().kind === 'string') throw BAIL;
    return this.chain(t);
  }

  // `a.b.c`, `t.*`: one Field; a number after a dot is a TupleAccess (postfix).
  private chain(first: Token): Read {
    const chain: string[] = [first.text];
    let end = first.end;
    while (this.isPunct('.')) {
      const n = this.peek(1);
      if (n.kind === 'word' || n.kind === 'quoted') chain.push(n.text);
      else if (n.kind === 'punct' && n.text === '*') chain.push('*');
      else break;
      this.i += 2;
      end = n.end;
      if (n.text === '*' && n.kind === 'punct') break;
    }
    return this.read({ node: 'Field', chain }, first.start, end);
  }

  /** Comma-separated expressions up to `close` (not read), a trailing comma allowed as the WASM parser allows it. */
  list(close: string): Node[] {
    const out: Node[] = [];
    if (this.isPunct(close)) return out;
    for (;;) {
      out.push(this.expr(ALIAS).node);
      if (!this.isPunct(',')) return out;
      this.i++;
      if (this.isPunct(close)) throw BAIL;
    }
  }

  private call(name: Token): Read {
    this.expectPunct('(');
    const distinct = this.isWord('distinct');
    if (distinct) this.i++;
    let args = this.list(')');
    let close = this.expectPunct(')');
    let params: Node[] | null = null;
    if (this.isPunct('(')) {
      if (distinct) throw BAIL;
      this.i++;
      if (this.isWord('distinct')) throw BAIL;
      params = args;
      args = this.list(')');
      close = this.expectPunct(')');
    }
    if (this.isWord('over')) {
      // A named window (`over w`) and a window over a parametric or distinct call: the WASM parser's.
      if (params !== null || distinct) throw BAIL;
      this.i++;
      const named = this.peek();
      if (named.kind === 'word' && !KEYWORDS.has(named.lower)) {
        // `over w`: a window the query's WINDOW clause names.
        this.i++;
        return this.read({ node: 'WindowFunction', name: name.text, exprs: args, args: [], over_identifier: named.text }, name.start, named.end);
      }
      this.expectPunct('(');
      const over = this.windowExpr();
      const end = this.expectPunct(')');
      return this.read({ node: 'WindowFunction', name: name.text, exprs: args, args: [], over_expr: over.node }, name.start, end.end);
    }
    if (this.isWord('filter') || this.isPunct('(')) throw BAIL;
    return this.read({ node: 'Call', name: name.text, args, params, distinct, filter_expr: null, order_by: null }, name.start, close.end);
  }

  /** An ORDER BY element: the expression and its direction (the WASM parser's OrderExpr). */
  orderExpr(): Read {
    const expr = this.expr();
    let end = expr.end;
    let order = 'ASC';
    const t = this.peek();
    if (t.kind === 'word' && (t.lower === 'asc' || t.lower === 'ascending' || t.lower === 'desc' || t.lower === 'descending')) {
      this.i++;
      order = t.lower.startsWith('asc') ? 'ASC' : 'DESC';
      end = t.end;
    }
    if (this.isWord('nulls') || this.isWord('collate') || this.isWord('with')) throw BAIL;
    return this.read({ node: 'OrderExpr', expr: expr.node, order }, expr.start, end);
  }

  // What `over (…)` (or a WINDOW clause's `name as (…)`) holds, up to its closing parenthesis: PARTITION BY, ORDER BY and a ROWS or
  // RANGE frame, spanning its first token to its last (an empty one sits at the parenthesis),
  // as the WASM parser's WindowExpr.
  windowExpr(): Read {
    const start = this.peek().start;
    let end = start;
    const list = (item: () => Read): Node[] => {
      const out: Node[] = [];
      for (;;) {
        const read = item();
        out.push(read.node);
        end = read.end;
        if (!this.isPunct(',')) return out;
        this.i++;
      }
    };
    let partition: Node[] | null = null;
    let order: Node[] | null = null;
    if (this.isWord('partition')) {
      this.i++;
      this.expectWord('by');
      partition = list(() => this.expr());
    }
    if (this.isWord('order')) {
      this.i++;
      this.expectWord('by');
      order = list(() => this.orderExpr());
    }
    const node: Node = { node: 'WindowExpr', partition_by: partition, order_by: order, frame_start: null, frame_end: null };
    if (this.isWord('rows') || this.isWord('range')) {
      node.frame_method = this.next().lower.toUpperCase();
      const between = this.isWord('between');
      if (between) this.i++;
      const first = this.frameBound();
      node.frame_start = first.node;
      end = first.end;
      if (between) {
        this.expectWord('and');
        const last = this.frameBound();
        node.frame_end = last.node;
        end = last.end;
      }
    }
    if (!this.isPunct(')')) throw BAIL;
    return this.read(node, start, end);
  }

  // UNBOUNDED PRECEDING/FOLLOWING, CURRENT ROW, or a number PRECEDING/FOLLOWING.
  private frameBound(): Read {
    const t = this.next();
    if (t.kind === 'word' && t.lower === 'current') {
      const row = this.expectWord('row');
      return this.read({ node: 'WindowFrameExpr', frame_type: 'CURRENT ROW' }, t.start, row.end);
    }
    let value: unknown = null;
    if (t.kind === 'number') value = numberValue(t.text);
    else if (!(t.kind === 'word' && t.lower === 'unbounded')) throw BAIL;
    if (typeof value === 'number' && !Number.isInteger(value)) throw BAIL;
    const side = this.next();
    if (side.kind !== 'word' || (side.lower !== 'preceding' && side.lower !== 'following')) throw BAIL;
    return this.read({ node: 'WindowFrameExpr', frame_type: side.lower.toUpperCase(), frame_value: value }, t.start, side.end);
  }

  private lambda(args: string[], start: number): Read {
    this.expectPunct('->');
    if (this.isPunct('{')) throw BAIL;
    const body = this.expr(ALIAS);
    return this.read({ node: 'Lambda', args, expr: body.node }, start, body.end);
  }

  private punct(t: Token): Read {
    switch (t.text) {
      case '*':
        return this.read({ node: 'Field', chain: ['*'] }, t.start, t.end);
      case '(': {
        if (this.isWord('select') || this.isWord('with')) {
          const query = this.subquery(this);
          const close = this.expectPunct(')');
          return { node: query.node, start: t.start, end: close.end };
        }
        if (this.lambdaAhead()) {
          const args: string[] = [];
          for (;;) {
            args.push(this.name());
            if (this.isPunct(')')) break;
            this.expectPunct(',');
          }
          this.i++;
          return this.lambda(args, t.start);
        }
        const exprs = this.list(')');
        const close = this.expectPunct(')');
        if (exprs.length === 0) throw BAIL;
        if (exprs.length === 1) {
          // Parentheses leave no node: the inner one keeps its positions.
          return { node: exprs[0], start: t.start, end: close.end };
        }
        return this.read({ node: 'Tuple', exprs }, t.start, close.end);
      }
      case '[': {
        const exprs = this.list(']');
        const close = this.expectPunct(']');
        return this.read({ node: 'Array', exprs }, t.start, close.end);
      }
      case '{': {
        // A placeholder; a dict (`{'a': 1}`) is left to the WASM parser.
        if (this.isPunct('}')) throw BAIL;
        const inner = this.expr(ALIAS);
        const close = this.expectPunct('}');
        return this.read({ node: 'Placeholder', expr: inner.node }, t.start, close.end);
      }
      default:
        throw BAIL;
    }
  }

  // `(a, b) ->`: names in parentheses followed by an arrow.
  private lambdaAhead(): boolean {
    let k = 0;
    for (;;) {
      const n = this.peek(k);
      if (!(n.kind === 'word' || n.kind === 'quoted')) return false;
      const sep = this.peek(k + 1);
      if (sep.kind !== 'punct') return false;
      if (sep.text === ')') return this.isPunct('->', k + 2);
      if (sep.text !== ',') return false;
      k += 2;
    }
  }

  private caseExpr(t: Token): Read {
    const subject = this.isWord('when') ? null : this.expr(ALIAS).node;
    const args: Node[] = subject === null ? [] : [subject];
    let whens = 0;
    while (this.isWord('when')) {
      this.i++;
      args.push(this.expr(ALIAS).node);
      this.expectWord('then');
      args.push(this.expr(ALIAS).node);
      whens++;
    }
    if (whens === 0) throw BAIL;
    if (this.isWord('else')) {
      this.i++;
      args.push(this.expr(ALIAS).node);
    } else args.push({ node: 'Constant', value: null });
    const end = this.expectWord('end');
    const name = subject !== null ? '_caseWithExpression' : whens === 1 ? 'if' : 'multiIf';
    return this.read({ node: 'Call', name, args }, t.start, end.end);
  }

  // `interval 7 day`: a number and a unit (a string or an expression is left to the WASM parser).
  private interval(t: Token): Read {
    const n = this.next();
    if (n.kind !== 'number') throw BAIL;
    const unit = this.next();
    const name = unit.kind === 'word' ? INTERVAL_UNITS[unit.lower] : undefined;
    if (name === undefined) throw BAIL;
    const amount = this.at({ node: 'Constant', value: numberValue(n.text) }, n.start, n.end);
    return this.read({ node: 'Call', name: `toInterval${name}`, args: [amount] }, t.start, unit.end);
  }
}

function concatArgs(node: Node): Node[] {
  return node.node === 'Call' && node.name === 'concat' ? node.args as Node[] : [node];
}

function flat(kind: string, node: Node): Node[] {
  return node.node === kind ? node.exprs as Node[] : [node];
}

// A number's value as the WASM parser gives it; past what a double holds exactly, BAIL.
function numberValue(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) throw BAIL;
  if (/^[0-9]+$/.test(text) || /^0[xX]/.test(text)) {
    if (!Number.isSafeInteger(value)) throw BAIL;
  }
  return value;
}
