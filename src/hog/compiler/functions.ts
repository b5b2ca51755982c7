// Named functions and lambdas compile to CALLABLE (the body inline, skipped when not
// called) followed by CLOSURE with the upvalues the body captured. A body that does not
// end in `return` gets `return null`.

import type { Block, FunctionNode, Lambda, Node, Placeholder, Statement } from '../ast.js';
import { Op } from '../opcodes.js';
import type { Emitted, FunctionCompiler } from './scope.js';

const STATEMENTS: ReadonlySet<string> = new Set([
  'Program', 'Block', 'ExprStatement', 'ReturnStatement', 'ThrowStatement', 'IfStatement', 'WhileStatement',
  'ForStatement', 'ForInStatement', 'VariableDeclaration', 'VariableAssignment', 'Function', 'TryCatchStatement',
]);

const returnNull: Statement = { node: 'ReturnStatement', expr: null };

function withImplicitReturn(body: Node, isLambda: boolean): Node {
  if (body.node === 'Placeholder') {
    // `x -> {foo}` parses as a placeholder; PostHog treats it as a block with one statement.
    return { node: 'Block', declarations: [{ node: 'ExprStatement', expr: (body as Placeholder).expr }, returnNull] };
  }
  if (body.node === 'Block') {
    const declarations = (body as Block).declarations;
    if (declarations.length === 0 || declarations[declarations.length - 1].node !== 'ReturnStatement') {
      return { node: 'Block', declarations: [...declarations, returnNull] };
    }
    return body;
  }
  if (body.node === 'ReturnStatement') return body;
  // A lambda's expression body is its return value; any other body gets `return null` after it.
  if (!isLambda || STATEMENTS.has(body.node)) return { node: 'Block', declarations: [body as Statement, returnNull] };
  return { node: 'ReturnStatement', expr: body as never };
}

function callable(c: FunctionCompiler, name: string, params: string[], body: Node, isLambda: boolean): Emitted {
  const inner = c.child(params);
  const code = inner.visit(withImplicitReturn(body, isLambda));
  const ops: Emitted = [Op.CALLABLE, name, params.length, inner.upvalues.length, code.length, ...code];
  ops.push(Op.CLOSURE, inner.upvalues.length);
  for (const upvalue of inner.upvalues) ops.push(upvalue.isLocal, upvalue.index);
  return ops;
}

export function functionDeclaration(c: FunctionCompiler, node: FunctionNode): Emitted {
  // Declared first, so the body reaches itself (recursion) as an upvalue.
  c.declareLocal(node.name);
  return callable(c, node.name, node.params, node.body, false);
}

export function lambda(c: FunctionCompiler, node: Lambda): Emitted {
  return callable(c, 'lambda', node.args, node.expr, true);
}
