// `hedgerow subscription run ID`: a delivery of the subscription now, outside its schedule.
// The request is written through the data dir's write path (the control stream on a node of
// a cluster); the running service's scheduler delivers it at its next tick, on one node, as
// it delivers a scheduled one.
import type { DataDirOpener } from '../state/index.js';
import { requestRunCommand } from './commands.js';
import { findSubscription } from './records.js';
import type { SubscriptionsTables } from './tables.js';

export async function runSubscriptionCommand(args: readonly string[], config: { dataDir: string; json: boolean; open: DataDirOpener<SubscriptionsTables> }): Promise<string> {
  const id = args[0];
  if (!id || !/^\d+$/.test(id)) throw new Error('usage: hedgerow subscription run ID');
  const opened = await config.open(config.dataDir, [requestRunCommand]);
  try {
    const found = findSubscription(opened.store, Number(id));
    if (!found || found.deleted) throw new Error(`no subscription ${id}`);
    const at = new Date().toISOString();
    await opened.writes.submit(requestRunCommand, { project_id: found.project_id, id: found.id, at });
    if (config.json) return JSON.stringify({ id: found.id, run_requested_at: at });
    return `subscription ${found.id} will be delivered at the service's next look (every HEDGEROW_SUBSCRIPTION_TICK_MS)${found.enabled ? '' : ' once it is enabled'}`;
  } finally {
    await opened.close();
  }
}
