// What a module is: one domain's part in a running hedgerow. A module declares what it
// brings (its name, and through the service's context its tables, consumers and commands)
// and starts with the modules before it already running. Its start answers with its
// routes, the readiness checks it adds and how to close it, plus whatever it provides to
// the modules after it (read with `use`).
import type { Route } from '../http/types.js';

export interface Module<C, P = unknown> {
  readonly name: string;
  start?(ctx: C, use: Use): Promise<Started<P>> | Started<P>;
}

// What a started module answers.
export interface Started<P = undefined> {
  readonly provides?: P;
  readonly routes?: readonly Route[];
  // Named checks, each true when this module is ready to serve; the node is ready when
  // every module's every check is.
  ready?(): Readonly<Record<string, boolean>>;
  // Why a check of ready() fails, by its name (for the operator reading /_readiness).
  unready?(): Readonly<Record<string, string>>;
  close?(): Promise<void> | void;
}

// What a module started before this one provides. Asking for one that has not started
// (listed later, or not at all) is a wiring mistake, thrown at start.
export type Use = <P>(module: Module<never, P>) => P;

export function defineModule<C, P = undefined>(module: Module<C, P>): Module<C, P> {
  return module;
}
