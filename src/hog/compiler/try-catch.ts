// try/catch. TRY records where the catch area starts; on a throw the VM unwinds the stack
// to its depth at TRY and pushes the error, which becomes local `e`, with `type` (its
// type) beside it. Catches are tested in order; none matching rethrows.

import type { TryCatchStatement } from '../ast.js';
import { compare, constant, field } from '../ast.js';
import { Op } from '../opcodes.js';
import type { Emitted, FunctionCompiler } from './scope.js';

export function tryCatch(c: FunctionCompiler, node: TryCatchStatement): Emitted {
  if (node.finally_stmt) c.fail('finally blocks are not yet supported', node);
  if (!node.catches || node.catches.length === 0) c.fail('try statement must have at least one catch block', node);

  const body = c.visit(node.try_stmt);
  const ops: Emitted = [Op.TRY, body.length + 4, ...body, Op.POP_TRY];

  const catches: Emitted = [];
  const exits: number[] = []; // operands of the jumps to the end, patched below
  c.startScope();
  c.declareLocal('e');
  catches.push(...c.visit(field('e', 'type')));
  c.declareLocal('type');
  for (const [variable, type, statement] of node.catches) {
    const name = variable ?? 'e';
    c.startScope();
    if ((type ?? 'Error') === 'Error') {
      if (name !== 'e') {
        c.declareLocal(name);
        catches.push(...c.visit(field('e')));
      }
      catches.push(...c.visit(statement), ...c.endScope(), Op.JUMP, null);
    } else {
      catches.push(...c.visit(compare('==', field('type'), constant(type))), Op.JUMP_IF_FALSE);
      const handler: Emitted = [];
      if (name !== 'e') {
        c.declareLocal(name);
        handler.push(...c.visit(field('e')));
      }
      handler.push(...c.visit(statement));
      const popped = c.endScope();
      handler.push(...popped);
      // PostHog's offset: it subtracts the scope's pops, so with a renamed variable a
      // mismatch lands on the exit jump's operand. Kept byte for byte.
      catches.push(handler.length + 2 - popped.length, ...handler, Op.JUMP, null);
    }
    exits.push(catches.length - 1);
  }
  catches.push(Op.POP, Op.THROW); // nothing matched: drop `type`, rethrow `e`
  const popped = c.endScope();
  catches.push(...popped);
  for (const at of exits) catches[at] = catches.length - at - popped.length - 1;

  ops.push(Op.JUMP, catches.length, ...catches);
  return ops;
}
