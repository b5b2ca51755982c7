// Periodic snapshots, taken once for the cluster: by the node holding the `snapshots`
// claim (src/log/consumers claimWork). The holder looks every interval (at most every
// minute) at the newest usable snapshot and takes one when it is older than the interval,
// so neither a restart nor a handover of the claim resets the clock; after each it
// compacts (./compact.ts).
import type { Cluster } from '../cluster/index.js';
import { claimWork, type Claim } from '../log/consumers/index.js';
import type { Logger } from '../logger.js';
import type { Environments } from '../store/index.js';
import { snapshotsClient } from './client.js';
import { compact } from './compact.js';
import { newestUsable } from './plan.js';
import { takeSnapshot } from './take.js';

export interface ScheduleOptions {
  store: Pick<Environments, 'path' | 'root'>;
  eventStore: string;
  intervalSeconds: number;
  keep: number;
  log: Logger;
  // This node's applied control sequence (recorded with the claim, for an operator to read).
  applied(): number;
}

const MAX_LOOK_MS = 60_000;

export async function scheduleSnapshots(cluster: Cluster, opts: ScheduleOptions): Promise<{ close(): Promise<void> }> {
  const client = await snapshotsClient(cluster);
  const intervalMs = opts.intervalSeconds * 1000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let held = false;
  // Said once per process: an older cluster's stream is never compacted.
  let toldDenied = false;

  async function look() {
    const newest = newestUsable(await client.list(), await client.streams());
    if (newest && Date.now() - Date.parse(newest.created) < intervalMs) return;
    const meta = await takeSnapshot({ store: opts.store, client, eventStore: opts.eventStore, node: cluster.node });
    const done = await compact(client, opts.keep);
    opts.log.info('snapshot taken', {
      name: meta.name, bytes: meta.size, took_ms: meta.took_ms, control_seq: meta.control.seq, event_position: meta.events.position,
      kept: done.kept.length, removed: done.removed.length, control_first: done.controlFirst,
    });
    if (done.purge.startsWith('denied') && !toldDenied) {
      toldDenied = true;
      opts.log.warn('control stream not compacted: it was created with deny_purge, and keeps every command', { control_first: done.controlFirst });
    }
  }

  function next() {
    if (!held) return;
    timer = setTimeout(() => {
      running = look().catch((err) => opts.log.warn('snapshot', { error: (err as Error).message })).finally(next);
    }, Math.min(intervalMs, MAX_LOOK_MS));
  }

  const claim: Claim = await claimWork(cluster, {
    name: 'snapshots', position: opts.applied,
    async onAcquire() {
      held = true;
      running = look().catch((err) => opts.log.warn('snapshot', { error: (err as Error).message })).finally(next);
    },
    async onLose() {
      held = false;
      if (timer) clearTimeout(timer);
      await running;
    },
    onError: (err) => opts.log.warn('snapshot claim', { error: err.message }),
  });
  return {
    async close() {
      await claim.close();
      held = false;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
