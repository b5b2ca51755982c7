// HogQL SELECT statements for the fast parser, and its three entry points (the WASM parser's
// parseSelect, parseExpr and parseOrderExpr). Each returns the JSON the WASM parser would, or
// null where the fast path does not know the text (or the text is not valid HogQL): the
// caller then asks the WASM parser, whose errors and positions stay PostHog's. Pure.
import { BAIL, tokenize } from './lexer.js';
import { KEYWORDS, Parser, RESERVED_ALIASES, type Node, type Read } from './expr.js';
import { TOO_DEEP_TO_PARSE } from '../source-bounds.js';

const JOIN_TYPES = new Set(['JOIN', 'INNER JOIN', 'LEFT JOIN', 'LEFT OUTER JOIN', 'RIGHT JOIN', 'RIGHT OUTER JOIN', 'FULL JOIN', 'FULL OUTER JOIN', 'CROSS JOIN']);
// Words that end a select's column list, a table or its alias.
const CLAUSE_ENDS = new Set(['from', 'where', 'prewhere', 'group', 'having', 'order', 'limit', 'union', 'join', 'inner', 'left', 'right', 'full', 'cross', 'on']);

function ends(p: Parser): boolean {
  const t = p.peek();
  if (t.kind === 'eof') return true;
  if (t.kind === 'punct') return t.text === ')' || t.text === ';' || t.text === ',';
  return t.kind === 'word' && CLAUSE_ENDS.has(t.lower);
}

/** A SELECT, or several joined by UNION ALL; `top`: the whole text's statement. */
function selectSet(p: Parser, top = false): Read {
  const first = selectStmt(p, top);
  if (!p.isWord('union')) {
    if (p.isWord('except') || p.isWord('intersect')) throw BAIL;
    return first;
  }
  const subsequent: Node[] = [];
  let end = first.end;
  while (p.isWord('union')) {
    p.i++;
    p.expectWord('all');
    if (!p.isWord('select')) throw BAIL;
    const next = selectStmt(p, false);
    subsequent.push({ node: 'SelectSetNode', select_query: next.node, set_operator: 'UNION ALL' });
    end = next.end;
  }
  if (p.isWord('except') || p.isWord('intersect')) throw BAIL;
  return p.read({ node: 'SelectSetQuery', initial_select_query: first.node, subsequent_select_queries: subsequent }, first.start, end);
}

function exprList(p: Parser): Node[] {
  const out: Node[] = [];
  for (;;) {
    out.push(p.expr().node);
    if (!ends(p)) throw BAIL;
    if (!p.isPunct(',')) return out;
    p.i++;
  }
}

function selectStmt(p: Parser, top: boolean): Read {
  const start = p.peek().start;
  let ctes: Node[] | null = null;
  if (p.isWord('with')) {
    p.i++;
    ctes = [];
    for (;;) {
      const name = p.peek();
      const cteName = p.name();
      p.expectWord('as');
      p.expectPunct('(');
      if (!p.isWord('select') && !p.isWord('with')) throw BAIL;
      const query = selectSet(p);
      const close = p.expectPunct(')');
      ctes.push(p.at({ node: 'CTE', name: cteName, expr: query.node, cte_type: 'subquery', columns: null, materialized: null, using_key: null }, name.start, close.end));
      if (!p.isPunct(',')) break;
      p.i++;
    }
  }
  p.expectWord('select');
  const distinct = p.isWord('distinct') ? (p.i++, true) : null;
  if (p.isWord('top') || p.isWord('all')) throw BAIL;
  const select = exprList(p);
  const q: Node = {
    node: 'SelectQuery', ctes, distinct, select, select_from: null, prewhere: null, where: null, group_by: null, having: null, qualify: null,
  };
  const last = () => p.tokens[p.i - 1].end;
  let end = last();
  if (p.isWord('from')) {
    p.i++;
    q.select_from = joins(p);
    end = last();
  }
  const arrayJoin = arrayJoinOp(p);
  if (arrayJoin !== null) {
    // `ARRAY JOIN arr AS x, …`: every array named (the WASM parser refuses one without an alias).
    q.array_join_op = arrayJoin;
    q.array_join_list = exprList(p);
    if (!(q.array_join_list as Node[]).every((item) => item.node === 'Alias')) throw BAIL;
    end = last();
  }
  if (p.isWord('array') || p.isWord('left') || p.isWord('inner')) throw BAIL;
  for (const clause of ['prewhere', 'where'] as const) {
    if (p.isWord(clause)) {
      p.i++;
      q[clause] = p.expr().node;
      end = last();
    }
  }
  if (p.isWord('group')) {
    p.i++;
    p.expectWord('by');
    q.group_by = exprList(p);
    end = last();
    if (p.isWord('with')) throw BAIL;
  }
  if (p.isWord('having')) {
    p.i++;
    q.having = p.expr().node;
    end = last();
  }
  if (p.isWord('window')) {
    p.i++;
    const windows: Record<string, Node> = {};
    for (;;) {
      const name = p.next();
      if (name.kind !== 'word' || KEYWORDS.has(name.lower) || Object.hasOwn(windows, name.text)) throw BAIL;
      p.expectWord('as');
      p.expectPunct('(');
      windows[name.text] = p.windowExpr().node;
      end = p.expectPunct(')').end;
      if (!p.isPunct(',')) break;
      p.i++;
    }
    q.window_exprs = windows;
  }
  if (p.isWord('qualify') || p.isWord('window')) throw BAIL;
  if (p.isWord('order')) {
    p.i++;
    p.expectWord('by');
    const order: Node[] = [];
    for (;;) {
      order.push(p.orderExpr().node);
      if (!p.isPunct(',')) break;
      p.i++;
    }
    q.order_by = order;
    end = last();
  }
  if (p.isWord('limit')) {
    p.i++;
    q.limit = p.expr().node;
    end = last();
    if (p.isPunct(',')) {
      p.i++;
      q.offset = p.expr().node;
      end = last();
    } else if (p.isWord('offset')) {
      // The WASM parser's SELECT ends at its LIMIT's value here, not at the OFFSET's, when it
      // is the whole text; elsewhere (a union, a subquery) its end is left to it.
      p.i++;
      q.offset = p.expr().node;
      if (!top || !(p.peek().kind === 'eof' || p.isPunct(';'))) throw BAIL;
    }
    if (p.isWord('by') || p.isWord('with')) throw BAIL;
  }
  if (p.isWord('offset') || p.isWord('settings') || p.isWord('limit')) throw BAIL;
  return p.read(q, start, end);
}

// `ARRAY JOIN`, `LEFT ARRAY JOIN` or `INNER ARRAY JOIN` (read, and named as the WASM parser names it), or null.
function arrayJoinOp(p: Parser): string | null {
  const side = p.isWord('left') || p.isWord('inner') ? p.peek().lower : null;
  const at = side === null ? 0 : 1;
  if (!p.isWord('array', at) || !p.isWord('join', at + 1)) return null;
  p.i += at + 2;
  return side === null ? 'ARRAY JOIN' : `${side.toUpperCase()} ARRAY JOIN`;
}

function tableAlias(p: Parser): string | null {
  const as = p.isWord('as');
  if (as) p.i++;
  const t = p.peek();
  if (t.kind === 'word' && RESERVED_ALIASES.has(t.lower)) throw BAIL;
  if (as || t.kind === 'quoted' || (t.kind === 'word' && !KEYWORDS.has(t.lower))) return p.name();
  return null;
}

function tableExpr(p: Parser): Read & { args?: Node[] } {
  const t = p.peek();
  if (t.kind === 'punct' && t.text === '(') {
    p.i++;
    if (!p.isWord('select') && !p.isWord('with')) throw BAIL;
    const query = selectSet(p);
    const close = p.expectPunct(')');
    return { node: query.node, start: t.start, end: close.end };
  }
  if (t.kind !== 'word' && t.kind !== 'quoted') throw BAIL;
  const chain: string[] = [p.name()];
  let end = t.end;
  while (p.isPunct('.')) {
    p.i++;
    const n = p.peek();
    chain.push(p.name());
    end = n.end;
  }
  if (p.isPunct('(')) {
    // A table function (`numbers(10)`): the WASM parser gives its name without positions and
    // its arguments apart, and ends the join at the closing parenthesis, whatever alias follows.
    if (chain.length !== 1) throw BAIL;
    p.i++;
    const args = p.list(')');
    const close = p.expectPunct(')');
    return { node: { node: 'Field', chain }, start: t.start, end: close.end, args };
  }
  return p.read({ node: 'Field', chain }, t.start, end);
}

function joinExpr(p: Parser, joinType: string | null): Read {
  const table: Read & { args?: Node[] } = tableExpr(p);
  if (p.isWord('final') || p.isWord('sample')) throw BAIL;
  const alias = tableAlias(p);
  const end = table.args === undefined ? p.tokens[p.i - 1].end : table.end;
  const node: Node = { node: 'JoinExpr', table: table.node, alias, next_join: null, sample: null, table_final: null };
  if (table.args !== undefined) node.table_args = table.args;
  // The WASM parser names no column aliases, and says so only where the table has an alias.
  if (alias !== null) node.column_aliases = null;
  if (joinType !== null) node.join_type = joinType;
  return p.read(node, table.start, end);
}

function joins(p: Parser): Node {
  const first = joinExpr(p, null).node;
  let last = first;
  for (;;) {
    // `LEFT ARRAY JOIN` and `INNER ARRAY JOIN` follow the joins: selectStmt's.
    if ((p.isWord('left') || p.isWord('inner')) && p.isWord('array', 1)) break;
    const words: string[] = [];
    while (p.peek(words.length).kind === 'word' && ['inner', 'left', 'right', 'full', 'cross', 'outer', 'join'].includes(p.peek(words.length).lower)) {
      const w = p.peek(words.length).lower;
      words.push(w.toUpperCase());
      if (w === 'join') break;
    }
    if (words.length === 0) break;
    const type = words.join(' ');
    if (!JOIN_TYPES.has(type)) throw BAIL;
    p.i += words.length;
    const joined = joinExpr(p, type).node;
    if (p.isWord('on')) {
      const on = p.next();
      const expr = p.expr();
      joined.constraint = p.at({ node: 'JoinConstraint', expr: expr.node, constraint_type: 'ON' }, on.start, expr.end);
    } else if (type !== 'CROSS JOIN') throw BAIL;
    last.next_join = joined;
    last = joined;
  }
  if (p.isPunct(',')) throw BAIL;
  return first;
}

export type FastParseKind = 'select' | 'expr' | 'orderExpr';

/**
 * The WASM parser's JSON for `source` read as `kind` (a SELECT and an ORDER BY element with
 * positions, an expression without, as src/insights/hogql.ts asks for them), or null where the
 * fast path leaves the text to the WASM parser.
 */
export function fastParse(kind: FastParseKind, source: string): string | null {
  try {
    const tokens = tokenize(source);
    const p = new Parser(source, tokens, kind !== 'expr', selectSet);
    let read: Read;
    if (kind === 'select') {
      if (!p.isWord('select') && !p.isWord('with')) return null;
      read = selectSet(p, true);
      if (p.isPunct(';')) p.i++;
    } else if (kind === 'orderExpr') read = p.orderExpr();
    else read = p.expr();
    if (p.peek().kind !== 'eof') return null;
    return JSON.stringify(read.node);
  } catch (err) {
    if (err === BAIL) return null;
    // A text nested past this parser's stack (`not not not …`, `1+1+…` without parentheses,
    // which the nesting bound does not count) is past the WASM parser's too, which would
    // spend seconds before it traps: answered here.
    if (err instanceof RangeError) return JSON.stringify({ error: true, message: TOO_DEEP_TO_PARSE });
    throw err;
  }
}
