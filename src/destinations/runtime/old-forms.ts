// What an earlier version of the destinations store wrote in a form this one no longer
// keeps, turned into today's form before the store is used (docs/decisions/0062): by the
// node as the destinations start, before it claims the consumer (its handover point reads
// the counts), and by the consumer as it opens; whichever comes second finds nothing to
// turn. The queue's index by `after` was one entry per queued invocation ([after, function
// id, event uuid, mapping index] → null, in `pending_by_after`); it is now one count per
// position (`pending_counts`, ./queue.ts). Turned once rather than read beside the counts
// for ever: a dequeue then need not ask which form counted its entry, and the handover
// point reads one table. It costs one pass over the old entries, in one transaction, at the
// first start only. (The done marks' time index needs no turning: its old records read as
// one mark each.)
import type { Database } from 'lmdb';
import type { DestinationsStore } from './env.js';
import { addPending } from './queue.js';

export async function upgradeOldForms(store: DestinationsStore): Promise<void> {
  const old: Database<null, [number, string, string, number]> = store.root.openDB({ name: 'pending_by_after' });
  if (!hasAny(old)) return;
  // Counted inside the transaction: the other thread may have turned them meanwhile.
  await store.root.transaction(() => {
    const counts = new Map<number, number>();
    for (const key of old.getKeys()) {
      counts.set(key[0], (counts.get(key[0]) ?? 0) + 1);
      old.remove(key);
    }
    for (const [after, n] of counts) addPending(store, after, n);
  });
}

function hasAny(db: Database<null, [number, string, string, number]>): boolean {
  for (const _ of db.getKeys({ limit: 1 })) return true;
  return false;
}
