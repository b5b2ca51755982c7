// One compiler per function body (the program is the outermost), mirroring the scoping
// rules of PostHog's compiler: locals live on the VM stack in declaration order, a block
// pops (or closes, when captured) what it declared, and a name that is neither a local
// nor an upvalue of an enclosing function is a global.

import type { Node } from '../ast.js';
import type { BytecodeItem } from '../opcodes.js';
import { Op } from '../opcodes.js';
import { HogCompileError, locate } from '../errors.js';

export type Emitted = BytecodeItem[];

interface Local {
  name: string;
  depth: number;
  captured: boolean;
}

interface Upvalue {
  index: number;
  isLocal: boolean;
}

/** What every compiler of one compilation shares. */
export interface Session {
  source: string;
  /** Names a call may use without a "not implemented" warning (beyond the VM's library). */
  knownFunctions: ReadonlySet<string>;
  /** PostHog's context errors (kind "error": calls to unknown functions) and warnings; neither stops compiling. */
  warnings: { message: string; node: Node; kind: 'error' | 'warning' }[];
  handlers: Readonly<Record<string, Handler>>;
}

export type Handler = (c: FunctionCompiler, node: never) => Emitted;

export class FunctionCompiler {
  readonly session: Session;
  readonly enclosing: FunctionCompiler | null;
  readonly locals: Local[] = [];
  readonly upvalues: Upvalue[] = [];
  depth = 0;
  /** "ast" inside sql(...) and select queries: nodes become AST dictionaries. */
  mode: 'hog' | 'ast';
  /** The nodes being compiled, outermost first (a node's place decides how some compile: ./expressions.ts betweenExpr). */
  readonly path: Node[] = [];

  constructor(session: Session, enclosing: FunctionCompiler | null, params: readonly string[] | null) {
    this.session = session;
    this.enclosing = enclosing;
    this.mode = enclosing ? enclosing.mode : 'hog';
    if (params) for (const name of params) this.declareLocal(name);
  }

  /** A compiler for the body of a function declared here. */
  child(params: readonly string[]): FunctionCompiler {
    return new FunctionCompiler(this.session, this, params);
  }

  visit(node: Node): Emitted {
    const handler = this.mode === 'ast' && node.node !== 'Placeholder'
      ? this.session.handlers.$ast
      : this.session.handlers[node.node];
    if (handler === undefined) this.fail(`Unsupported syntax: ${node.node}`, node);
    this.path.push(node);
    try {
      return (handler as (c: FunctionCompiler, n: Node) => Emitted)(this, node);
    } catch (err) {
      // The innermost node that came from source names the place.
      if (err instanceof HogCompileError && err.location === null && node.start) {
        err.location = locate(this.session.source, node.start.offset);
      }
      throw err;
    } finally {
      this.path.pop();
    }
  }

  fail(message: string, node?: Node): never {
    const start = node?.start;
    throw new HogCompileError(message, start ? locate(this.session.source, start.offset) : null);
  }

  startScope(): void {
    this.depth++;
  }

  /** Leaves a block: one POP (or CLOSE_UPVALUE) per local it declared, newest first. */
  endScope(): Emitted {
    this.depth--;
    const ops: Emitted = [];
    while (this.locals.length > 0 && this.locals[this.locals.length - 1].depth > this.depth) {
      const local = this.locals.pop()!;
      ops.push(local.captured ? Op.CLOSE_UPVALUE : Op.POP);
    }
    return ops;
  }

  declareLocal(name: string): number {
    for (let i = this.locals.length - 1; i >= 0; i--) {
      const local = this.locals[i];
      if (local.depth < this.depth) break;
      if (local.name === name) this.fail(`Variable \`${name}\` already declared in this scope`);
    }
    this.locals.push({ name, depth: this.depth, captured: false });
    return this.locals.length - 1;
  }

  /** The stack slot of the newest local called `name`, or -1. */
  findLocal(name: string | number): number {
    for (let i = this.locals.length - 1; i >= 0; i--) {
      if (this.locals[i].name === name) return i;
    }
    return -1;
  }

  /** The upvalue index of `name` captured from enclosing functions, or -1. */
  resolveUpvalue(name: string): number {
    if (this.enclosing === null) return -1;
    const slot = this.enclosing.findLocal(name);
    if (slot !== -1) {
      this.enclosing.locals[slot].captured = true;
      return this.addUpvalue(slot, true);
    }
    const outer = this.enclosing.resolveUpvalue(name);
    return outer === -1 ? -1 : this.addUpvalue(outer, false);
  }

  private addUpvalue(index: number, isLocal: boolean): number {
    const found = this.upvalues.findIndex((u) => u.index === index && u.isLocal === isLocal);
    if (found !== -1) return found;
    this.upvalues.push({ index, isLocal });
    return this.upvalues.length - 1;
  }

  warn(message: string, node: Node, kind: 'error' | 'warning' = 'warning'): void {
    this.session.warnings.push({ message, node, kind });
  }
}
