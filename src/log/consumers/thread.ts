// What a consumer's worker thread runs (workers/consumer.ts): open the store (with the
// opener it is given: every domain's tables, whichever the consumer uses), the thread's
// own cluster handle (a thread cannot share the main thread's sockets: one NATS connection
// for all it does, or the embedded twin) and the log reader it gives (reading records with
// the codec it is given), find the consumer's definition in the module it came from, and run
// it until told to stop. Reports go to the supervisor as plain messages.
import { openCluster, type ClusterSettings } from '../../cluster/index.js';
import type { OpenStore } from '../../store/index.js';
import { openLogReader } from '../open.js';
import { runConsumer } from './run.js';
import type { ConsumerReports, FailureKind } from './ladder.js';
import type { QuarantinedRecord } from './dead-letters.js';
import type { RegisteredConsumer } from './registry.js';
import type { ConsumerDefinition } from './types.js';
import type { LogCodec } from '../types.js';
import type { LogTables } from '../tables.js';

export interface ConsumerThreadData {
  consumer: RegisteredConsumer;
  dataDir: string;
  // The process's cluster settings, from which the thread opens its own handle.
  cluster: ClusterSettings;
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
  data: ConsumerThreadData, codec: LogCodec, openStore: OpenStore<LogTables>, signal: AbortSignal, post: (m: ThreadMessage) => void,
  phase: Int32Array,
): Promise<void> {
  const definition = await loadDefinition(data.consumer);
  // The supervisor is terminating this thread: open nothing.
  if (!leaveLoading(phase, OPENED)) return;
  const store = openStore(data.dataDir);
  let cluster;
  try {
    cluster = await openCluster(data.cluster, 'thread', data.consumer.name);
  } catch (err) {
    await store.close();
    throw err;
  }
  const reports: ConsumerReports = { setAside: (setAside) => post({ setAside }), failed: (failed) => post({ failed }) };
  try {
    const reader = await openLogReader(cluster, store, codec, Math.min(data.batchBytes, definition.batchBytes ?? Infinity));
    try {
      await runConsumer(definition, { store, reader, signal, settings: data.consumer.settings, reports, cluster });
    } finally {
      await reader.close();
    }
  } finally {
    await cluster.close();
    await store.close();
  }
}
