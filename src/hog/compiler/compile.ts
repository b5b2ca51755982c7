// The compiler's entry: the table from AST node names to their rules, and compilation of
// a parsed tree to a complete bytecode program `["_H", 1, ...]`.

import type { Node } from '../ast.js';
import type { Bytecode } from '../opcodes.js';
import { BYTECODE_HEADER } from '../opcodes.js';
import { call, exprCall } from './calls.js';
import {
  and, arithmeticOperation, arrayAccess, arrayLiteral, betweenExpr, compareOperation, constant, dict, field, not, or,
  tuple, tupleAccess,
} from './expressions.js';
import { functionDeclaration, lambda } from './functions.js';
import { hogqlxTag, placeholder } from './hogqlx.js';
import { astNode } from './sql.js';
import { FunctionCompiler, type Handler, type Session } from './scope.js';
import {
  block, exprStatement, forInStatement, forStatement, ifStatement, returnStatement, throwStatement, variableAssignment,
  variableDeclaration, whileStatement,
} from './statements.js';
import { tryCatch } from './try-catch.js';

const HANDLERS: Readonly<Record<string, Handler>> = {
  Program: block,
  Block: block,
  ExprStatement: exprStatement,
  ReturnStatement: returnStatement,
  ThrowStatement: throwStatement,
  IfStatement: ifStatement,
  WhileStatement: whileStatement,
  ForStatement: forStatement,
  ForInStatement: forInStatement,
  VariableDeclaration: variableDeclaration,
  VariableAssignment: variableAssignment,
  Function: functionDeclaration,
  Lambda: lambda,
  TryCatchStatement: tryCatch,
  Constant: constant,
  Field: field,
  ArrayAccess: arrayAccess,
  TupleAccess: tupleAccess,
  Call: call,
  ExprCall: exprCall,
  And: and,
  Or: or,
  Not: not,
  CompareOperation: compareOperation,
  BetweenExpr: betweenExpr,
  ArithmeticOperation: arithmeticOperation,
  Dict: dict,
  Array: arrayLiteral,
  Tuple: tuple,
  HogQLXTag: hogqlxTag,
  Placeholder: placeholder,
  // Select queries are HogQL ASTs in Hog: they compile to AST dictionaries.
  SelectQuery: (c: FunctionCompiler, node: Node) => inAstMode(c, node),
  SelectSetQuery: (c: FunctionCompiler, node: Node) => inAstMode(c, node),
  $ast: astNode,
};

function inAstMode(c: FunctionCompiler, node: Node) {
  const previous = c.mode;
  c.mode = 'ast';
  try {
    return astNode(c, node);
  } finally {
    c.mode = previous;
  }
}

export interface CompileWarning {
  message: string;
  node: Node;
  kind: 'error' | 'warning';
}

export interface Compiled {
  bytecode: Bytecode;
  /** What PostHog records without failing: calls to functions neither the VM nor the host has. */
  warnings: CompileWarning[];
}

/** Compiles a parsed tree; throws HogCompileError. `source` locates errors. */
export function compileTree(root: Node, source: string, knownFunctions: ReadonlySet<string> = new Set()): Compiled {
  const session: Session = { source, knownFunctions, warnings: [], handlers: HANDLERS };
  const ops = new FunctionCompiler(session, null, null).visit(root);
  return { bytecode: [...BYTECODE_HEADER, ...ops], warnings: session.warnings };
}
