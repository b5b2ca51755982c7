// What a consumer's worker thread runs (workers/consumer.ts): open the store and the log
// reader the config names (reading records with the codec it is given), find the
// consumer's definition in the module it came from, and run it until told to stop.
// Reports go to the supervisor as plain messages.
import { openStore } from '../../store/env.js';
import { createLmdbLogReader } from '../lmdb-log.js';
import { createNatsLogReader } from '../nats-log.js';
import { runConsumer } from './run.js';
import type { ConsumerReports, FailureKind } from './ladder.js';
import type { QuarantinedRecord } from './dead-letters.js';
import type { RegisteredConsumer } from './registry.js';
import type { ConsumerDefinition } from './types.js';
import type { LogCodec } from '../types.js';

export interface ConsumerThreadData {
  consumer: RegisteredConsumer;
  dataDir: string;
  natsUrl: string | null;
  // Replicas of the event stream if this reader is the first to need it (HEDGEROW_NATS_REPLICAS).
  natsReplicas: number;
  // Log bytes handed to the consumer at most at once (embedded log).
  batchBytes: number;
}

export type ThreadMessage = { setAside: QuarantinedRecord } | { failed: FailureKind } | 'stopped';

// A consumer thread's phase, shared with its supervisor (./supervise.ts) in one Int32 of a
// SharedArrayBuffer. While LOADING the thread only loads modules: it has opened nothing and
// applied nothing, so a supervisor stopping it terminates it at once instead of waiting
// seconds for it to load. The first to move the phase off LOADING wins, atomically: the
// thread (to OPENED, before it opens the store; from then on it stops only when asked, at
// the end of what it is applying) or the supervisor (to TERMINATING; the thread then
// opens nothing).
export const LOADING = 0;
export const OPENED = 1;
export const TERMINATING = 2;

export function newPhase(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

// Moves the phase from LOADING to `to`; false if the other side moved it first.
export function leaveLoading(phase: Int32Array, to: typeof OPENED | typeof TERMINATING): boolean {
  return Atomics.compareExchange(phase, 0, LOADING, to) === LOADING;
}

function isDefinition(value: unknown, name: string): value is ConsumerDefinition<unknown> {
  const d = value as Partial<ConsumerDefinition<unknown>> | null;
  return typeof d === 'object' && d !== null && d.name === name && typeof d.open === 'function' && typeof d.module === 'string';
}

export async function loadDefinition(consumer: RegisteredConsumer): Promise<ConsumerDefinition<unknown>> {
  const exported: Record<string, unknown> = await import(consumer.module);
  const found = Object.values(exported).find((v) => isDefinition(v, consumer.name));
  if (!found) throw new Error(`${consumer.module} exports no log consumer named ${consumer.name}`);
  return found;
}

export async function runConsumerThread(
  data: ConsumerThreadData, codec: LogCodec, signal: AbortSignal, post: (m: ThreadMessage) => void, phase: Int32Array,
): Promise<void> {
  const definition = await loadDefinition(data.consumer);
  // The supervisor is terminating this thread: open nothing.
  if (!leaveLoading(phase, OPENED)) return;
  const store = openStore(data.dataDir);
  const reader = data.natsUrl ? await createNatsLogReader({ url: data.natsUrl, replicas: data.natsReplicas, codec }) : createLmdbLogReader(store, codec, data.batchBytes);
  const reports: ConsumerReports = { setAside: (setAside) => post({ setAside }), failed: (failed) => post({ failed }) };
  try {
    await runConsumer(definition, { store, reader, signal, settings: data.consumer.settings, reports });
  } finally {
    await reader.close();
    await store.close();
  }
}
