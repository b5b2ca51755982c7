// HogQLX tags (`<Sparkline data={x} />`) build dictionaries tagged `__hx_tag`, or call a
// local function of the tag's name with the attributes. Placeholders (`{x}`) only mean
// something inside sql(...), where they switch back to compiling Hog.

import type { HogQLXTag, Node, Placeholder } from '../ast.js';
import { field } from '../ast.js';
import { Op } from '../opcodes.js';
import type { Emitted, FunctionCompiler } from './scope.js';

/** An attribute value: a node, a list of nodes (children) or plain data. */
export function hogqlxValue(c: FunctionCompiler, value: unknown): Emitted {
  if (Array.isArray(value)) return [...value.flatMap((v) => hogqlxValue(c, v)), Op.ARRAY, value.length];
  if (value !== null && typeof value === 'object') {
    if (typeof (value as Node).node === 'string') return c.visit(value as Node);
    if ('$float' in value) return [Op.FLOAT, (value as { $float: number }).$float];
    const entries = Object.entries(value);
    return [...entries.flatMap(([k, v]) => [Op.STRING, k, ...hogqlxValue(c, v)]), Op.DICT, entries.length];
  }
  // PostHog checks integers before booleans, and its booleans are integers.
  if (typeof value === 'number' || typeof value === 'boolean') {
    return typeof value === 'number' && !Number.isInteger(value) ? [Op.FLOAT, value] : [Op.INTEGER, value];
  }
  if (typeof value === 'string') return [Op.STRING, value];
  return [Op.NULL];
}

export function hogqlxTag(c: FunctionCompiler, node: HogQLXTag): Emitted {
  const callable = c.findLocal(node.kind) !== -1 || c.resolveUpvalue(node.kind) !== -1;
  const attributes = node.attributes.flatMap((a) => [...hogqlxValue(c, a.name), ...hogqlxValue(c, a.value)]);
  if (callable) {
    return [...attributes, Op.DICT, node.attributes.length, ...c.visit(field(node.kind)), Op.CALL_LOCAL, 1];
  }
  return [Op.STRING, '__hx_tag', Op.STRING, node.kind, ...attributes, Op.DICT, node.attributes.length + 1];
}

export function placeholder(c: FunctionCompiler, node: Placeholder): Emitted {
  if (c.mode !== 'ast') c.fail('Placeholders are not allowed in this context', node);
  c.mode = 'hog';
  try {
    return c.visit(node.expr);
  } finally {
    c.mode = 'ast';
  }
}
