// The consumers a service runs, as the main thread knows them: plain data (the worker
// thread of each finds its definition again through `module`). Registering records the
// position of a consumer that starts at the log's end, before anything could prune or
// apply past it; one that starts at the beginning holds retention back from the moment
// it is registered, stored position or not (src/log/retention.ts).
import type { LogTables } from '../tables.js';
import { consumerPosition, positionKey } from './positions.js';
import { DEFAULT_CONSUMER_NICE, type ConsumerDeclaration, type StartAt } from './types.js';

export interface RegisteredConsumer {
  readonly module: string;
  readonly name: string;
  readonly startsAt: StartAt;
  readonly follows?: string;
  // Handed to the definition's open() in its thread (plain data).
  readonly settings: unknown;
  // The bound on its thread's old generation, MB (ConsumerDefinition.heapMb); none: V8's default.
  readonly heapMb?: number;
  // Its thread's nice value (ConsumerDefinition.nice).
  readonly nice: number;
}

// A consumer with the settings the service runs it with.
export function registered<S>(declaration: ConsumerDeclaration<S>, ...settings: S extends undefined ? [] : [S]): RegisteredConsumer {
  const { module, name, startsAt, follows } = declaration;
  const heapMb = declaration.heapMb?.(settings[0] as S);
  const nice = declaration.nice ?? DEFAULT_CONSUMER_NICE;
  return { module, name, startsAt, follows, settings: settings[0], nice, ...(heapMb === undefined ? {} : { heapMb }) };
}

export function checkRegistry(consumers: readonly RegisteredConsumer[]): void {
  const names = new Set<string>();
  for (const c of consumers) {
    if (names.has(c.name)) throw new Error(`two log consumers are named ${c.name}`);
    if (c.name.includes('@')) throw new Error(`log consumer name ${c.name} must not contain @`);
    names.add(c.name);
  }
  for (const c of consumers) {
    if (c.follows !== undefined && !names.has(c.follows)) throw new Error(`log consumer ${c.name} follows ${c.follows}, which is not registered`);
  }
}

// At start-up, before the consumers and retention run: a consumer that starts at the end
// and has no position yet stands at `lastSeq` from now on.
export async function registerConsumers(store: LogTables, logId: string, lastSeq: number, consumers: readonly RegisteredConsumer[]): Promise<void> {
  checkRegistry(consumers);
  for (const c of consumers) {
    const position = consumerPosition(store, c.name, logId);
    if (c.startsAt === 'end' && position.read() === undefined) await position.commit(lastSeq);
  }
}

// Every registered consumer's stored position in `logId` (0 for one without).
export function positionsOf(store: LogTables, logId: string, consumers: readonly RegisteredConsumer[]): { name: string; position: number }[] {
  return consumers.map((c) => ({ name: c.name, position: store.positions.get(positionKey(c.name, logId)) ?? 0 }));
}
