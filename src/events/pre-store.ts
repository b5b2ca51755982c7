// The step the event store runs on each batch before it stores it (./store-consumer.ts): what
// it makes of the batch's events, each replaced, dropped or left as it was. The events domain
// knows only this shape; the step is composed where modules are wired (src/main.ts: the
// destinations' transformations), and its code is loaded in the event store's thread from the
// module a declaration names, with the plain settings it carries.
import type { CapturedEvent } from '../log/types.js';
import type { EventGroup } from '../log/consumers/index.js';

// What the event store stores in place of an event of the batch: a new event, null (dropped)
// or undefined (as it was).
export type Replacement = CapturedEvent | null | undefined;

export interface Transformed {
  // Per group of the batch, in order: its events' replacements by their index among the
  // events it reads, or null when none of them is replaced.
  readonly groups: readonly (Replacement[] | null)[];
  // Once the batch is stored (the step's own writes: logs, metrics).
  committed(): Promise<void>;
}

export interface PreStoreStep {
  // Null when the step leaves every event of the batch as it was.
  transform(groups: readonly EventGroup[]): Promise<Transformed | null>;
  close(): Promise<void>;
}

// Where a step's code is (a module URL exporting `openPreStoreStep`) and its settings (plain
// data: they cross to the consumer's thread).
export interface PreStoreDeclaration {
  module: string;
  settings: unknown;
}

// What a step's module exports: opened in the event store's thread over its store (every
// domain's tables), with the declaration's settings and the consumer's clock.
export type OpenPreStoreStep = (store: unknown, settings: unknown, now: () => number) => PreStoreStep;

export async function loadPreStoreStep(declaration: PreStoreDeclaration, store: unknown, now: () => number): Promise<PreStoreStep> {
  const { openPreStoreStep } = await import(declaration.module) as { openPreStoreStep: OpenPreStoreStep };
  return openPreStoreStep(store, declaration.settings, now);
}
