// After a snapshot: keep the newest few usable snapshots, remove the rest, and purge the
// control stream up to the oldest one kept (./plan.ts retention). A stream made with
// deny_purge (clusters started before 0033) is left whole: the result says so.
import type { SnapshotsClient } from './client.js';
import { retention, type SnapshotMeta } from './plan.js';

export interface Compaction {
  kept: SnapshotMeta[];
  removed: string[];
  // The control stream's first sequence after compaction, or why it was not purged.
  controlFirst: number;
  purge: 'purged' | 'nothing to purge' | 'denied by the stream (deny_purge)';
}

export async function compact(client: SnapshotsClient, keep: number): Promise<Compaction> {
  const now = await client.streams();
  const plan = retention(await client.list(), now, keep);
  for (const m of plan.remove) await client.remove(m.name);
  const removed = plan.remove.map((m) => m.name);
  const control = now.control;
  if (!control || plan.purgeThrough < control.first) return { kept: plan.keep, removed, controlFirst: control?.first ?? 0, purge: 'nothing to purge' };
  if (!control.purgeable) return { kept: plan.keep, removed, controlFirst: control.first, purge: 'denied by the stream (deny_purge)' };
  await client.purgeControl(plan.purgeThrough);
  return { kept: plan.keep, removed, controlFirst: plan.purgeThrough + 1, purge: 'purged' };
}
