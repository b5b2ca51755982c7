// Inside sql(...) and select queries, HogQL nodes are not run: each compiles to a
// dictionary {__hx_ast: <node name>, <field>: <value>, ...} that the VM prints as SQL.
// PostHog emits the fields of its Python AST classes in declaration order, skipping
// unset ones; the orders below are those of its classes for the common nodes (checked
// against PostHog's published bytecode for arithmetic, constants, fields, select and
// joins); other nodes keep the parser's field order (alphabetical).

import type { HogQLXTag, Node } from '../ast.js';
import { Op } from '../opcodes.js';
import { hogqlxTag, hogqlxValue } from './hogqlx.js';
import type { Emitted, FunctionCompiler } from './scope.js';

const FIELD_ORDER: Readonly<Record<string, readonly string[]>> = {
  Field: ['chain', 'from_asterisk'],
  Constant: ['value'],
  ArithmeticOperation: ['left', 'right', 'op'],
  CompareOperation: ['left', 'right', 'op'],
  And: ['exprs'],
  Or: ['exprs'],
  Not: ['expr'],
  Alias: ['alias', 'expr', 'hidden'],
  Call: ['name', 'args', 'params', 'distinct'],
  Lambda: ['args', 'expr'],
  OrderExpr: ['expr', 'order'],
  SelectQuery: [
    'ctes', 'select', 'distinct', 'select_from', 'array_join_op', 'array_join_list', 'window_exprs', 'where',
    'prewhere', 'having', 'group_by', 'order_by', 'limit', 'limit_by', 'limit_with_ties', 'offset', 'settings',
    'view_name',
  ],
  JoinExpr: ['join_type', 'table', 'table_args', 'alias', 'table_final', 'constraint', 'next_join', 'sample'],
  JoinConstraint: ['expr', 'constraint_type'],
};

// Fields PostHog's classes always carry that the parser's JSON leaves out.
const DEFAULTS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  Field: { from_asterisk: false },
  Alias: { hidden: false },
};

const NOT_FIELDS = new Set(['node', 'start', 'end', 'type']);

export function astNode(c: FunctionCompiler, node: Node): Emitted {
  if (node.node === 'HogQLXTag') {
    const kind = (node as HogQLXTag).kind;
    if (c.findLocal(kind) !== -1 || c.resolveUpvalue(kind) !== -1) return hogqlxTag(c, node as HogQLXTag);
  }
  const values: Record<string, unknown> = { ...DEFAULTS[node.node], ...node };
  const order = FIELD_ORDER[node.node] ?? [];
  const names = [...order, ...Object.keys(values).filter((k) => !order.includes(k)).sort()];
  const ops: Emitted = [Op.STRING, '__hx_ast', Op.STRING, node.node];
  let count = 1;
  for (const name of names) {
    const value = values[name];
    if (NOT_FIELDS.has(name) || value === null || value === undefined) continue;
    ops.push(Op.STRING, name, ...hogqlxValue(c, value));
    count++;
  }
  ops.push(Op.DICT, count);
  return ops;
}
