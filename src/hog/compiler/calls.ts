// Calls. and/or/not/if/multiIf/ifNull are compiled inline as PostHog does (if, multiIf and
// ifNull jump, so they short-circuit); sql(...) switches to AST mode. Other calls push
// their arguments in order and call a local closure, an upvalue, or a global function.

import type { Call, Expr, ExprCall } from '../ast.js';
import { call as callNode, field as fieldNode } from '../ast.js';
import { Op } from '../opcodes.js';
import type { Emitted, FunctionCompiler } from './scope.js';
import { isLibraryFunction } from './library.js';

/** `cond ? then : else` with the else branch optional, as PostHog lays it out. */
function conditional(cond: Emitted, then: Emitted, otherwise: Emitted | null): Emitted {
  const ops: Emitted = [...cond, Op.JUMP_IF_FALSE, then.length + (otherwise ? 2 : 0), ...then];
  if (otherwise) ops.push(Op.JUMP, otherwise.length, ...otherwise);
  return ops;
}

function multiIf(c: FunctionCompiler, args: Expr[]): Emitted {
  if (args.length <= 3) return c.visit(callNode('if', ...args));
  // Built from the last branch outwards; an odd count ends with the default value.
  let prev: Emitted | null = args.length % 2 === 0 ? null : c.visit(args[args.length - 1]);
  for (let i = args.length - 2 - (args.length % 2); i >= 0; i -= 2) {
    prev = conditional(c.visit(args[i]), c.visit(args[i + 1]), prev);
  }
  return prev as Emitted;
}

function special(c: FunctionCompiler, node: Call): Emitted | null {
  const args = node.args;
  switch (node.name) {
    case 'not':
      return args.length === 1 ? [...c.visit(args[0]), Op.NOT] : null;
    case 'and':
      return args.length > 1 ? [...args.flatMap((a) => c.visit(a)), Op.AND, args.length] : null;
    case 'or':
      return args.length > 1 ? [...args.flatMap((a) => c.visit(a)), Op.OR, args.length] : null;
    case 'if':
      if (args.length < 2) return null;
      return conditional(c.visit(args[0]), c.visit(args[1]), args.length === 3 ? c.visit(args[2]) : null);
    case 'multiIf':
      return args.length >= 2 ? multiIf(c, args) : null;
    case 'ifNull': {
      if (args.length !== 2) return null;
      const value = c.visit(args[0]);
      const fallback = c.visit(args[1]);
      return [...value, Op.JUMP_IF_STACK_NOT_NULL, fallback.length + 1, Op.POP, ...fallback];
    }
    case 'sql': {
      if (args.length !== 1) return null;
      const previous = c.mode;
      c.mode = 'ast';
      try {
        return c.visit(args[0]);
      } finally {
        c.mode = previous;
      }
    }
    default:
      return null;
  }
}

export function call(c: FunctionCompiler, node: Call): Emitted {
  const inline = special(c, node);
  if (inline !== null) return inline;

  // HogQL's parametric form f(params)(args): f(params) returns the closure called with args.
  const first = node.params ?? node.args;
  let ops: Emitted = first.flatMap((a) => c.visit(a));
  if (c.findLocal(node.name) !== -1) {
    ops.push(...c.visit(fieldNode(node.name)), Op.CALL_LOCAL, first.length);
  } else {
    const upvalue = c.resolveUpvalue(node.name);
    if (upvalue !== -1) {
      ops.push(Op.GET_UPVALUE, upvalue, Op.CALL_LOCAL, first.length);
    } else {
      if (!c.session.knownFunctions.has(node.name) && !isLibraryFunction(node.name)) {
        c.warn(`Hog function \`${node.name}\` is not implemented`, node, 'error');
      }
      ops.push(Op.CALL_GLOBAL, node.name, first.length);
    }
  }
  if (node.params != null) {
    ops = [...node.args.flatMap((a) => c.visit(a)), ...ops, Op.CALL_LOCAL, node.args.length];
  }
  return ops;
}

export function exprCall(c: FunctionCompiler, node: ExprCall): Emitted {
  return [...node.args.flatMap((a) => c.visit(a)), ...c.visit(node.expr), Op.CALL_LOCAL, node.args.length];
}
