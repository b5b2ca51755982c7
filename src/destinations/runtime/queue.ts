// The invocation queue in the destinations store (docs/decisions/0021). An invocation is
// named by (function, event uuid, mapping index): the same event never makes two, and
// once it has finished its done mark says so, so a replayed event does not queue it
// again. An entry lives from the transaction that records its event's batch until the
// transaction that records its outcome.
import { createHash } from 'node:crypto';
import type { DestinationsStore, QueuedInvocation } from '../../store/destinations.js';

export type InvocationKey = [functionId: string, eventUuid: string, mappingIndex: number];

// How long done marks are kept: longer than any replay of the log could reach back.
export const DONE_RETENTION_MS = 7 * 24 * 3_600_000;

export function invocationKey(inv: Pick<QueuedInvocation, 'functionId' | 'eventUuid' | 'mappingIndex'>): InvocationKey {
  return [inv.functionId, inv.eventUuid, inv.mappingIndex];
}

/** A uuid (version 5 layout) derived from the key: the invocation's instance_id in its logs. */
export function instanceIdOf(key: InvocationKey): string {
  const hex = createHash('sha1').update(key.join('/')).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Whether the invocation is queued or already finished. */
export function known(store: DestinationsStore, key: InvocationKey): boolean {
  return store.queue.doesExist(key) || store.done.doesExist(key);
}

/** Inside a write transaction: the invocation is finished; its entry goes, its done mark stays. */
export function markDone(store: DestinationsStore, key: InvocationKey, outcome: 'succeeded' | 'failed', at: number): void {
  store.queue.remove(key);
  store.done.put(key, { at, outcome });
  store.doneByTime.put([at, ...key], null);
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
    for (const { key } of store.doneByTime.getRange({ end: [cutoff] })) {
      const [, functionId, eventUuid, mappingIndex] = key;
      store.done.remove([functionId, eventUuid, mappingIndex]);
      store.doneByTime.remove(key);
      n++;
    }
    return n;
  });
}
