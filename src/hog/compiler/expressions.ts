// Expressions: constants, names, property access, operators and collection literals.
// Binary operators push the right operand first: the VM pops the left one first.

import type {
  And, ArithmeticOperation, ArrayAccess, ArrayNode, BetweenExpr, CompareOperation, Constant, ConstantValue,
  Dict, ExprCall, Field, Lambda, Node, Not, Or, Tuple, TupleAccess,
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

// Whether the node being compiled runs with nothing of its own statement on the VM stack
// above the locals: the whole expression of a statement (or of the program), a condition,
// or the first argument of a call that itself does. Only there are hidden locals where the
// compiler counts them (PostHog's compiler counts locals only; elsewhere, as `print('x', 5
// between 1 and 10)`, its hidden locals would read the wrong slots).
function onCleanStack(c: FunctionCompiler): boolean {
  const path = c.path;
  for (let i = path.length - 1; i > 0; i--) {
    const child = path[i];
    const parent = path[i - 1] as Node & { expr?: unknown; args?: unknown[]; params?: unknown };
    switch (parent.node) {
      case 'ExprStatement': case 'ReturnStatement': case 'VariableDeclaration': case 'IfStatement': case 'WhileStatement':
        return parent.expr === child;
      case 'Call':
        if (parent.params != null || parent.args?.[0] !== child) return false;
        continue;
      default:
        return false;
    }
  }
  return true;
}

const OPERANDS = ['__H_between_expr_H__', '__H_between_low_H__', '__H_between_high_H__'];

// As PostHog's compiler: the three operands are held in hidden locals, after a slot for the
// result; when any is null the result is null (as SQL's BETWEEN), else the two comparisons
// joined by AND (OR when negated). The operands' locals are popped, the result stays as
// the expression's value. Where other values of the statement are on the stack, the same
// runs as a lambda called with the three operands (its locals are its own), so each
// operand is still evaluated once.
export function betweenExpr(c: FunctionCompiler, node: BetweenExpr): Emitted {
  if (!onCleanStack(c)) {
    const field = (name: string): Field => ({ node: 'Field', chain: [name] });
    const inner: BetweenExpr = { node: 'BetweenExpr', expr: field(OPERANDS[0]), low: field(OPERANDS[1]), high: field(OPERANDS[2]), negated: node.negated };
    const body: Lambda = { node: 'Lambda', args: OPERANDS, expr: inner };
    return c.visit({ node: 'ExprCall', expr: body, args: [node.expr, node.low, node.high] } satisfies ExprCall);
  }
  const result = c.declareLocal('__H_between_result_H__');
  const ops: Emitted = [Op.NULL];
  c.startScope();
  ops.push(...c.visit(node.expr));
  const expr = c.declareLocal(OPERANDS[0]);
  ops.push(...c.visit(node.low));
  const low = c.declareLocal(OPERANDS[1]);
  ops.push(...c.visit(node.high));
  const high = c.declareLocal(OPERANDS[2]);
  const comparison = node.negated
    ? [Op.GET_LOCAL, low, Op.GET_LOCAL, expr, Op.LT, Op.GET_LOCAL, high, Op.GET_LOCAL, expr, Op.GT, Op.OR, 2]
    : [Op.GET_LOCAL, low, Op.GET_LOCAL, expr, Op.GT_EQ, Op.GET_LOCAL, high, Op.GET_LOCAL, expr, Op.LT_EQ, Op.AND, 2];
  ops.push(
    Op.GET_LOCAL, low, Op.NULL, Op.NOT_EQ, Op.GET_LOCAL, high, Op.NULL, Op.NOT_EQ, Op.GET_LOCAL, expr, Op.NULL, Op.NOT_EQ, Op.AND, 3,
    Op.JUMP_IF_FALSE, comparison.length + 2, ...comparison, Op.JUMP, 1, Op.NULL, Op.SET_LOCAL, result,
  );
  ops.push(...c.endScope());
  // The result slot is the expression's value now, no longer a local.
  c.locals.pop();
  return ops;
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
