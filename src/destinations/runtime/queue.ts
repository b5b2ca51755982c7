// The invocation queue in the destinations store (docs/decisions/0021). An invocation is
// named by (function, event uuid, mapping index): the same event never makes two, and
// once it has finished its done mark says so, so a replayed event does not queue it
// again. An entry lives from the transaction that records its event's batch until the
// transaction that records its outcome.
import { hash } from 'node:crypto';
import type { DestinationsStore, DoneKeys, DoneMark, QueuedInvocation } from './env.js';

// The destinations consumer's name: its position, and its claim across a cluster.
export const DESTINATIONS_CONSUMER = 'destinations';

export type InvocationKey = [functionId: string, eventUuid: string, mappingIndex: number];

// How long done marks are kept: longer than any replay of the log could reach back.
export const DONE_RETENTION_MS = 7 * 24 * 3_600_000;

// The destinations consumer's own record of the last log sequence it applied (in `meta`,
// written with the invocations a batch queued).
export function appliedKey(logId: string): string {
  return `applied:${logId}`;
}

// Where the consumer stands inside a batch it applies chunk by chunk (./pipeline.ts): the log
// sequence of the record and the index in it of the last event a committed chunk covered.
// A batch applied again (after a crash, or entry by entry after a failure) skips those
// events, so their masking is not counted twice; the batch's end clears it.
export interface Progress {
  seq: number;
  index: number;
}

const progressKeys = (logId: string) => [`progress-seq:${logId}`, `progress-index:${logId}`] as const;

export function readProgress(store: DestinationsStore, logId: string): Progress | null {
  const [seqKey, indexKey] = progressKeys(logId);
  const seq = store.meta.get(seqKey);
  const index = store.meta.get(indexKey);
  return seq === undefined || index === undefined ? null : { seq, index };
}

/** Inside a write transaction. */
export function writeProgress(store: DestinationsStore, logId: string, progress: Progress | null): void {
  const [seqKey, indexKey] = progressKeys(logId);
  if (progress === null) {
    store.meta.remove(seqKey);
    store.meta.remove(indexKey);
    return;
  }
  store.meta.put(seqKey, progress.seq);
  store.meta.put(indexKey, progress.index);
}

export function invocationKey(inv: Pick<QueuedInvocation, 'functionId' | 'eventUuid' | 'mappingIndex'>): InvocationKey {
  return [inv.functionId, inv.eventUuid, inv.mappingIndex];
}

/** A uuid (version 5 layout) derived from the key: the invocation's instance_id in its logs. */
export function instanceIdOf(key: InvocationKey): string {
  // The one-shot hash: the same digest as a Hash object's, without making one per invocation.
  const hex = hash('sha1', `${key[0]}/${key[1]}/${key[2]}`, 'hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Whether the invocation is queued or already finished. */
export function known(store: DestinationsStore, key: InvocationKey): boolean {
  return store.queue.doesExist(key) || store.done.doesExist(key);
}

/**
 * Inside a write transaction: the invocation waits to run. Its `after` is counted apart, by
 * addPending in the same transaction (all a batch queues share one, so one count per chunk).
 */
export function enqueue(store: DestinationsStore, key: InvocationKey, inv: QueuedInvocation): void {
  store.queue.put(key, inv);
}

/** Inside the write transaction that queued them: `n` more invocations are queued with `after`. */
export function addPending(store: DestinationsStore, after: number, n: number): void {
  if (n > 0) store.pendingCounts.put(after, (store.pendingCounts.get(after) ?? 0) + n);
}

/**
 * Inside a write transaction: an event's pack, shared by `refs` of its invocations queued in
 * this transaction (each with `pack: key`): written once instead of in each one's entry.
 * `key` is the first one's invocation key, which no other pack can have while that
 * invocation is queued or done (an invocation is queued once).
 */
export function keepPack(store: DestinationsStore, key: InvocationKey, pack: Uint8Array, refs: number): void {
  store.packs.put(key, pack);
  store.packRefs.put(key, refs);
}

/** The globals of a queued invocation: its own, or its event's shared pack (undefined if gone). */
export function globalsOfQueued(store: DestinationsStore, inv: Pick<QueuedInvocation, 'globals' | 'pack'>): QueuedInvocation['globals'] | undefined {
  if (inv.globals !== null || inv.pack === undefined) return inv.globals;
  return store.packs.get(inv.pack);
}

/** Inside a write transaction: the invocation leaves the queue (finished, or dropped), and its event's pack with the last that shares it. */
export function dequeue(store: DestinationsStore, key: InvocationKey, inv: Pick<QueuedInvocation, 'after' | 'pack'>): void {
  dequeueAll(store, [{ key, inv }]);
}

/**
 * Inside a write transaction: invocations leave the queue; each position's count of those
 * queued, and each pack's count of those that refer to it, is read and written once for all
 * of them (a batch's invocations share a position, an event's tend to finish together), the
 * pack removed with the last. One no longer queued is counted out no more.
 */
export function dequeueAll(store: DestinationsStore, all: readonly { key: InvocationKey; inv: Pick<QueuedInvocation, 'after' | 'pack'> }[]): void {
  let released: Map<string, { key: InvocationKey; n: number }> | null = null;
  // Per position, how many of them left the queue.
  let positions: Map<number, number> | null = null;
  for (const { key, inv } of all) {
    if (!store.queue.removeSync(key)) continue;
    if (inv.after !== undefined) {
      positions ??= new Map();
      positions.set(inv.after, (positions.get(inv.after) ?? 0) + 1);
    }
    if (inv.pack === undefined) continue;
    const text = `${inv.pack[0]}\u0000${inv.pack[1]}\u0000${inv.pack[2]}`;
    const seen = (released ??= new Map()).get(text);
    if (seen === undefined) released.set(text, { key: inv.pack, n: 1 });
    else seen.n++;
  }
  if (positions !== null) for (const [after, n] of positions) removePending(store, after, n);
  if (released === null) return;
  for (const { key, n } of released.values()) {
    const refs = store.packRefs.get(key) ?? 0;
    if (refs > n) {
      store.packRefs.put(key, refs - n);
    } else {
      store.packRefs.remove(key);
      store.packs.remove(key);
    }
  }
}

function removePending(store: DestinationsStore, after: number, n: number): void {
  const count = (store.pendingCounts.get(after) ?? 0) - n;
  if (count > 0) store.pendingCounts.put(after, count);
  else store.pendingCounts.remove(after);
}

/** Inside a write transaction: the invocation is finished; its entry goes, its done mark stays. */
export function markDone(store: DestinationsStore, key: InvocationKey, inv: Pick<QueuedInvocation, 'after' | 'pack'>, outcome: 'succeeded' | 'failed', at: number): void {
  dequeue(store, key, inv);
  recordDone(store, [{ key, unsuccessful: outcome === 'failed' }], at);
}

/**
 * Inside a write transaction: the done marks of invocations that have left the queue, all
 * at `at`; their time index is one record for all of them, under the first one's key.
 */
export function recordDone(store: DestinationsStore, finished: readonly { key: InvocationKey; unsuccessful: boolean }[], at: number): void {
  if (finished.length === 0) return;
  const succeeded: DoneMark = { at, outcome: 'succeeded' };
  const failed: DoneMark = { at, outcome: 'failed' };
  let others: DoneKeys | null = null;
  for (let i = 0; i < finished.length; i++) {
    const { key, unsuccessful } = finished[i];
    store.done.put(key, unsuccessful ? failed : succeeded);
    if (i > 0) (others ??= []).push(key[0], key[1], key[2]);
  }
  const first = finished[0].key;
  store.doneByTime.put([at, first[0], first[1], first[2]], others);
}

/**
 * The log position a node taking the destinations consumer over must replay from so that
 * no invocation still queued here is lost: the oldest queued one's `after`, or null when
 * none is queued. Replaying from there repeats the deliveries this node made of later
 * events (at least once, not exactly once: docs/decisions/0031).
 */
export function pendingFloor(store: DestinationsStore): number | null {
  for (const after of store.pendingCounts.getKeys({ limit: 1 })) return after;
  return null;
}

/**
 * This node takes the destinations consumer over from `recorded` (the position the last
 * holder recorded, src/log/consumers/claim.ts): what is still queued here was replayed from
 * there by whoever held the consumer since, so it is forgotten, and the consumer's own
 * record of what it applied goes back to `recorded` (its progress inside a batch
 * forgotten) so that the replay is not skipped.
 * Returns how many queued invocations were forgotten.
 */
export function takeOver(store: DestinationsStore, logId: string, recorded: number): Promise<number> {
  return store.root.transaction(() => {
    let n = 0;
    for (const key of store.queue.getKeys()) {
      store.queue.remove(key);
      n++;
    }
    for (const after of store.pendingCounts.getKeys()) store.pendingCounts.remove(after);
    for (const key of store.packs.getKeys()) store.packs.remove(key);
    for (const key of store.packRefs.getKeys()) store.packRefs.remove(key);
    store.meta.put(appliedKey(logId), recorded);
    writeProgress(store, logId, null);
    return n;
  });
}

/** Where a successor must start so that nothing queued here is lost: `position`, or before the oldest queued invocation's event. */
export function handoverPosition(store: DestinationsStore, position: number): number {
  const floor = pendingFloor(store);
  return floor === null ? position : Math.min(position, floor);
}

/** The queue in key order (function by function), read as it is iterated. */
export function* queuedInvocations(store: DestinationsStore): Generator<{ key: InvocationKey; value: QueuedInvocation }> {
  for (const { key, value } of store.queue.getRange()) yield { key, value };
}

/** Drops done marks older than the retention. */
export async function pruneDone(store: DestinationsStore, nowMs: number): Promise<number> {
  const cutoff = nowMs - DONE_RETENTION_MS;
  return store.root.transaction(() => {
    let n = 0;
    for (const { key, value } of store.doneByTime.getRange({ end: [cutoff] })) {
      const [, functionId, eventUuid, mappingIndex] = key;
      store.done.remove([functionId, eventUuid, mappingIndex]);
      n++;
      // The other marks of its transaction (none in a record of the old form, one per mark).
      if (value !== null) {
        for (let i = 0; i + 2 < value.length; i += 3) store.done.remove([value[i] as string, value[i + 1] as string, value[i + 2] as number]);
        n += Math.floor(value.length / 3);
      }
      store.doneByTime.remove(key);
    }
    return n;
  });
}
