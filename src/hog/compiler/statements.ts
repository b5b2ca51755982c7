// Statements: blocks and their scopes, declarations, assignments, control flow.
// Jump offsets count from the element after the jump's operand.

import type {
  Block, ExprStatement, ForInStatement, ForStatement, IfStatement, Node, Program, ReturnStatement, ThrowStatement,
  VariableAssignment, VariableDeclaration, WhileStatement,
} from '../ast.js';
import { Op } from '../opcodes.js';
import type { Emitted, FunctionCompiler } from './scope.js';

function optional(c: FunctionCompiler, node: Node | null | undefined): Emitted {
  return node ? c.visit(node) : [];
}

export function block(c: FunctionCompiler, node: Program | Block): Emitted {
  c.startScope();
  const ops = node.declarations.flatMap((d) => c.visit(d));
  ops.push(...c.endScope());
  return ops;
}

export function exprStatement(c: FunctionCompiler, node: ExprStatement): Emitted {
  if (node.expr === null) return [];
  if (node.expr.node === 'CompareOperation' && node.expr.op === '==') {
    c.warn("You must use ':=' for assignment instead of '='.", node);
  }
  return [...c.visit(node.expr), Op.POP];
}

export function returnStatement(c: FunctionCompiler, node: ReturnStatement): Emitted {
  return [...(node.expr ? c.visit(node.expr) : [Op.NULL]), Op.RETURN];
}

export function throwStatement(c: FunctionCompiler, node: ThrowStatement): Emitted {
  return [...c.visit(node.expr), Op.THROW];
}

export function ifStatement(c: FunctionCompiler, node: IfStatement): Emitted {
  const cond = c.visit(node.expr);
  const then = c.visit(node.then);
  // An empty else block counts as none, as in PostHog's compiler.
  const otherwise = node.else_ ? c.visit(node.else_) : [];
  const ops: Emitted = [...cond, Op.JUMP_IF_FALSE, then.length + (otherwise.length > 0 ? 2 : 0), ...then];
  if (otherwise.length > 0) ops.push(Op.JUMP, otherwise.length, ...otherwise);
  return ops;
}

export function whileStatement(c: FunctionCompiler, node: WhileStatement): Emitted {
  const cond = c.visit(node.expr);
  const body = c.visit(node.body);
  const ops: Emitted = [...cond, Op.JUMP_IF_FALSE, body.length + 2, ...body];
  ops.push(Op.JUMP, -ops.length - 2);
  return ops;
}

/** Runs `body` then `increment` while `condition` holds (shared by both for loops). */
function loop(condition: Emitted, body: Emitted, increment: Emitted): Emitted {
  return [
    ...condition,
    Op.JUMP_IF_FALSE, body.length + increment.length + 2,
    ...body,
    ...increment,
    Op.JUMP, -increment.length - body.length - 2 - condition.length - 2,
  ];
}

export function forStatement(c: FunctionCompiler, node: ForStatement): Emitted {
  if (node.initializer) c.startScope();
  const initializer = optional(c, node.initializer);
  const condition = optional(c, node.condition);
  const increment = optional(c, node.increment);
  const body = optional(c, node.body);
  const ops = [...initializer, ...loop(condition, body, increment)];
  if (node.initializer) ops.push(...c.endScope());
  return ops;
}

// for (let k, v in expr): hidden locals hold the collection, its keys and values, the
// 1-based index and the length; the loop runs while length >= index.
export function forInStatement(c: FunctionCompiler, node: ForInStatement): Emitted {
  c.startScope();
  const ops: Emitted = [];
  const exprSlot = c.declareLocal('__H_expr_H__');
  ops.push(...c.visit(node.expr));
  let keysSlot = -1;
  if (node.keyVar !== null) {
    keysSlot = c.declareLocal('__H_keys_H__');
    ops.push(Op.GET_LOCAL, exprSlot, Op.CALL_GLOBAL, 'keys', 1);
  }
  const valuesSlot = c.declareLocal('__H_values_H__');
  ops.push(Op.GET_LOCAL, exprSlot, Op.CALL_GLOBAL, 'values', 1);
  const indexSlot = c.declareLocal('__H_index_H__');
  ops.push(Op.INTEGER, 1);
  const limitSlot = c.declareLocal('__H_limit_H__');
  ops.push(Op.GET_LOCAL, valuesSlot, Op.CALL_GLOBAL, 'length', 1);
  let keySlot = -1;
  if (node.keyVar !== null) {
    keySlot = c.declareLocal(node.keyVar);
    ops.push(Op.NULL);
  }
  const valueSlot = c.declareLocal(node.valueVar);
  ops.push(Op.NULL);

  const condition: Emitted = [Op.GET_LOCAL, limitSlot, Op.GET_LOCAL, indexSlot, Op.LT_EQ];
  const body: Emitted = [];
  if (node.keyVar !== null) {
    body.push(Op.GET_LOCAL, keysSlot, Op.GET_LOCAL, indexSlot, Op.GET_PROPERTY, Op.SET_LOCAL, keySlot);
  }
  body.push(Op.GET_LOCAL, valuesSlot, Op.GET_LOCAL, indexSlot, Op.GET_PROPERTY, Op.SET_LOCAL, valueSlot);
  body.push(...c.visit(node.body));
  const increment: Emitted = [Op.GET_LOCAL, indexSlot, Op.INTEGER, 1, Op.PLUS, Op.SET_LOCAL, indexSlot];
  ops.push(...loop(condition, body, increment), ...c.endScope());
  return ops;
}

export function variableDeclaration(c: FunctionCompiler, node: VariableDeclaration): Emitted {
  // Declared before its value is compiled: the value's slot on the stack is the variable.
  c.declareLocal(node.name);
  return node.expr ? c.visit(node.expr) : [Op.NULL];
}

/** `target.k1.k2 := value` on a local or upvalue object already pushed by `head`. */
function setOnChain(c: FunctionCompiler, head: Emitted, keys: readonly (string | number)[], node: VariableAssignment): Emitted {
  const ops = [...head];
  for (const key of keys.slice(0, -1)) {
    if (typeof key === 'number') ops.push(Op.INTEGER, key, Op.GET_PROPERTY);
    else ops.push(Op.STRING, String(key), Op.GET_PROPERTY);
  }
  const last = keys[keys.length - 1];
  ops.push(typeof last === 'number' ? Op.INTEGER : Op.STRING, typeof last === 'number' ? last : String(last));
  ops.push(...c.visit(node.right), Op.SET_PROPERTY);
  return ops;
}

export function variableAssignment(c: FunctionCompiler, node: VariableAssignment): Emitted {
  const left = node.left;
  if (left.node === 'TupleAccess') {
    return [...c.visit(left.tuple), Op.INTEGER, left.index, ...c.visit(node.right), Op.SET_PROPERTY];
  }
  if (left.node === 'ArrayAccess') {
    return [...c.visit(left.array), ...c.visit(left.property), ...c.visit(node.right), Op.SET_PROPERTY];
  }
  if (left.node === 'Field' && left.chain.length >= 1) {
    const [name, ...keys] = left.chain;
    const slot = c.findLocal(name);
    if (slot !== -1) {
      if (keys.length === 0) return [...c.visit(node.right), Op.SET_LOCAL, slot];
      return setOnChain(c, [Op.GET_LOCAL, slot], keys, node);
    }
    const upvalue = c.resolveUpvalue(String(name));
    if (upvalue !== -1) {
      if (keys.length === 0) return [...c.visit(node.right), Op.SET_UPVALUE, upvalue];
      return setOnChain(c, [Op.GET_UPVALUE, upvalue], keys, node);
    }
    c.fail(`Variable "${String(name)}" not declared in this scope. Can not assign to globals.`, node);
  }
  c.fail('Can not assign to this type of expression', node);
}
