// Expressions: constants, names, property access, operators and collection literals.
// Binary operators push the right operand first: the VM pops the left one first.

import type {
  And, ArithmeticOperation, ArrayAccess, ArrayNode, BetweenExpr, CompareOperation, Constant, ConstantValue,
  Dict, Field, Not, Or, Tuple, TupleAccess,
} from '../ast.js';
import { HogCompileError } from '../errors.js';
import { Op } from '../opcodes.js';
import type { Emitted, FunctionCompiler } from './scope.js';

const COMPARE_OPS: Readonly<Record<string, number>> = {
  '==': Op.EQ, '!=': Op.NOT_EQ, '>': Op.GT, '>=': Op.GT_EQ, '<': Op.LT, '<=': Op.LT_EQ,
  like: Op.LIKE, ilike: Op.ILIKE, 'not like': Op.NOT_LIKE, 'not ilike': Op.NOT_ILIKE,
  in: Op.IN, 'not in': Op.NOT_IN, '=~': Op.REGEX, '!~': Op.NOT_REGEX, '=~*': Op.IREGEX, '!~*': Op.NOT_IREGEX,
};

const ARITHMETIC_OPS: Readonly<Record<string, number>> = {
  '+': Op.PLUS, '-': Op.MINUS, '*': Op.MULTIPLY, '/': Op.DIVIDE, '%': Op.MOD,
};

/** The ops that push one constant. */
export function constantOps(value: ConstantValue | undefined): Emitted {
  if (value === true) return [Op.TRUE];
  if (value === false) return [Op.FALSE];
  if (value === null || value === undefined) return [Op.NULL];
  if (typeof value === 'string') return [Op.STRING, value];
  if (typeof value === 'number') return [Number.isInteger(value) ? Op.INTEGER : Op.FLOAT, value];
  if (typeof value === 'object' && typeof (value as { $float?: unknown }).$float === 'number') return [Op.FLOAT, value.$float];
  // Filters build constants from stored values, which may be lists or dictionaries.
  throw new HogCompileError(`Constant type \`<class '${Array.isArray(value) ? 'list' : 'dict'}'>\` is not supported`);
}

export function constant(_c: FunctionCompiler, node: Constant): Emitted {
  // Integers beyond 64 bits come as text tagged "number".
  if (node.value_type === 'number' && typeof node.value === 'string') return [Op.INTEGER, Number(node.value)];
  return constantOps(node.value);
}

/** Pushes the rest of a chain onto the value already on the stack. */
function chainTail(chain: readonly (string | number)[]): Emitted {
  const ops: Emitted = [];
  for (const element of chain) {
    if (typeof element === 'number') ops.push(Op.INTEGER, element, Op.GET_PROPERTY);
    else ops.push(Op.STRING, String(element), Op.GET_PROPERTY);
  }
  return ops;
}

export function field(c: FunctionCompiler, node: Field): Emitted {
  const [head, ...rest] = node.chain;
  const slot = c.findLocal(head);
  if (slot !== -1) return [Op.GET_LOCAL, slot, ...chainTail(rest)];
  const upvalue = c.resolveUpvalue(String(head));
  if (upvalue !== -1) return [Op.GET_UPVALUE, upvalue, ...chainTail(rest)];
  // A global: the chain is pushed last element first, so the VM pops the root first.
  const ops: Emitted = [];
  for (let i = node.chain.length - 1; i >= 0; i--) ops.push(Op.STRING, node.chain[i]);
  ops.push(Op.GET_GLOBAL, node.chain.length);
  return ops;
}

export function tupleAccess(c: FunctionCompiler, node: TupleAccess): Emitted {
  return [...c.visit(node.tuple), Op.INTEGER, node.index, node.nullish ? Op.GET_PROPERTY_NULLISH : Op.GET_PROPERTY];
}

export function arrayAccess(c: FunctionCompiler, node: ArrayAccess): Emitted {
  const property = node.property;
  // PostHog's check is on integers, and its booleans are integers.
  if (property.node === 'Constant' && (property.value === 0 || property.value === false)) c.fail('Array access starts from 1', node);
  return [...c.visit(node.array), ...c.visit(property), node.nullish ? Op.GET_PROPERTY_NULLISH : Op.GET_PROPERTY];
}

export function and(c: FunctionCompiler, node: And): Emitted {
  return [...node.exprs.flatMap((e) => c.visit(e)), Op.AND, node.exprs.length];
}

export function or(c: FunctionCompiler, node: Or): Emitted {
  return [...node.exprs.flatMap((e) => c.visit(e)), Op.OR, node.exprs.length];
}

export function not(c: FunctionCompiler, node: Not): Emitted {
  return [...c.visit(node.expr), Op.NOT];
}

export function compareOperation(c: FunctionCompiler, node: CompareOperation): Emitted {
  if (node.op === 'in cohort' || node.op === 'not in cohort') {
    const right = node.right;
    let cohort = '';
    if (right.node === 'Constant') {
      cohort = typeof right.value === 'number' && Number.isInteger(right.value)
        ? ` (cohort id=${right.value})`
        : ` (cohort: ${String(right.value)})`;
    }
    c.fail(`Can't use cohorts in real-time filters. Please inline the relevant expressions${cohort}.`, node);
  }
  const op = COMPARE_OPS[node.op];
  if (op === undefined) c.fail(`Unknown comparison operator: ${node.op}`, node);
  return [...c.visit(node.right), ...c.visit(node.left), op];
}

export function betweenExpr(c: FunctionCompiler, node: BetweenExpr): Emitted {
  if (node.negated) {
    return [
      ...c.visit(node.low), ...c.visit(node.expr), Op.LT,
      ...c.visit(node.high), ...c.visit(node.expr), Op.GT,
      Op.OR, 2,
    ];
  }
  return [
    ...c.visit(node.low), ...c.visit(node.expr), Op.GT_EQ,
    ...c.visit(node.high), ...c.visit(node.expr), Op.LT_EQ,
    Op.AND, 2,
  ];
}

export function arithmeticOperation(c: FunctionCompiler, node: ArithmeticOperation): Emitted {
  const op = ARITHMETIC_OPS[node.op];
  if (op === undefined) c.fail(`Unknown arithmetic operator: ${node.op}`, node);
  return [...c.visit(node.right), ...c.visit(node.left), op];
}

export function dict(c: FunctionCompiler, node: Dict): Emitted {
  const ops: Emitted = [];
  for (const [key, value] of node.items) ops.push(...c.visit(key), ...c.visit(value));
  ops.push(Op.DICT, node.items.length);
  return ops;
}

export function arrayLiteral(c: FunctionCompiler, node: ArrayNode): Emitted {
  return [...node.exprs.flatMap((e) => c.visit(e)), Op.ARRAY, node.exprs.length];
}

export function tuple(c: FunctionCompiler, node: Tuple): Emitted {
  return [...node.exprs.flatMap((e) => c.visit(e)), Op.TUPLE, node.exprs.length];
}
