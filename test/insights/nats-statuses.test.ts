// Query statuses in a JetStream KV bucket (src/insights/api/kv-statuses.ts) against a real
// nats-server: the statuses contract with two instances standing for two serve nodes, then
// what a cluster adds: a result larger than a NATS message, a runner that dies (read as lost
// within the documented bound, and not before), and a live runner's status kept running.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openStatuses } from '../../src/insights/api/kv-statuses.js';
import type { Statuses } from '../../src/insights/api/statuses.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { eventually } from '../helpers/wait.js';
import { runStatusesContract } from './statuses-contract.js';

const nats = natsServerForSuite();
const handles = clusterHandles();
let buckets = 0;
// Two nodes (cluster handles of their own). A bucket's max age is fixed when it is made: each
// pair has buckets of its own; the heartbeat and lost-after bound are the nodes' timings.
async function pair(opts: { keepMs?: number; lostAfterMs?: number } = {}): Promise<{ runner: Statuses; other: Statuses }> {
  const n = ++buckets;
  const open = async () => {
    const cluster = await handles.open(nats.server().url, {
      role: 'command', timings: { statusHeartbeatMs: 300, ...(opts.lostAfterMs ? { statusLostAfterMs: opts.lostAfterMs } : {}) },
    });
    const keepMs = opts.keepMs ?? cluster.assets.kv.queryStatuses.ttlMs;
    return openStatuses(cluster, {
      statuses: { ...cluster.assets.kv.queryStatuses, name: `QS_TEST_${n}`, ttlMs: keepMs },
      results: { ...cluster.assets.objects.queryResults, name: `QR_TEST_${n}`, ttlMs: keepMs },
    });
  };
  return { runner: await open(), other: await open() };
}

runStatusesContract({
  name: 'NATS JetStream KV',
  setup: () => nats.start(),
  open: (keepMs) => pair({ keepMs }),
});

const s = suite('query statuses over NATS: what a cluster adds');
let opened: Statuses[] = [];
const open = async (opts: Parameters<typeof pair>[0] = {}) => {
  const p = await pair(opts);
  opened.push(p.runner, p.other);
  return p;
};
s.after.each(async () => {
  for (const st of opened) await st.close().catch(() => undefined);
  opened = [];
});
s.after(async () => {
  await handles.closeAll();
  await nats.close();
});

s('a result larger than a NATS message (1 MB) reads whole on the other node', async () => {
  nats.server();
  const { runner, other } = await open();
  const rows = Array.from({ length: 3 }, (_, i) => ['ü'.repeat(400_000), i]);
  await runner.start(1, 'big', null, Date.now());
  await runner.finish(1, 'big', Date.now(), { results: { results: rows, columns: ['blob', 'n'] } });
  const st = await other.get(1, 'big', Date.now());
  assert.equal([st?.complete, st?.error], [true, false]);
  assert.ok(JSON.stringify(st?.results).length > 1_000_000);
  assert.equal(st?.results, { results: rows, columns: ['blob', 'n'] });
});

s('a runner that dies mid-calculation: its status reads as lost on the other node once the bound has passed, not before', async () => {
  const lostAfterMs = 1500;
  const { runner, other } = await open({ lostAfterMs });
  await runner.start(1, 'orphan', null, Date.now());
  // Stops its heartbeats without recording an outcome, as a killed process does.
  const died = Date.now();
  await runner.close();
  opened = opened.filter((o) => o !== runner);
  const pending = await other.get(1, 'orphan', Date.now());
  assert.equal([pending?.complete, pending?.error], [false, false]);
  const lost = await eventually(async () => {
    const st = await other.get(1, 'orphan', Date.now());
    return st?.complete ? { st, at: Date.now() } : null;
  });
  const after = lost.at - died;
  // Not before the bound; how soon after it is measured by bench/latencies.js (status-lost).
  assert.ok(after >= lostAfterMs - 400, `read lost ${after} ms after the runner stopped`);
  assert.equal([lost.st.error, lost.st.error_message], [true, 'Query calculation lost: the node running it stopped (no heartbeat)']);
  // Every node reads the same status, and cancelling it changes nothing.
  assert.ok(await other.cancel(1, 'orphan', Date.now()));
  assert.equal(await other.get(1, 'orphan', Date.now()), lost.st);
});

s('a runner that lives renews its status: still running well past the bound, then complete', async () => {
  const lostAfterMs = 1000;
  const { runner, other } = await open({ lostAfterMs });
  await runner.start(1, 'steady', null, Date.now());
  // Time passing is the point: three times the bound, renewed all along.
  await new Promise((r) => setTimeout(r, 3 * lostAfterMs));
  const st = await other.get(1, 'steady', Date.now());
  assert.equal([st?.complete, st?.error], [false, false]);
  await runner.finish(1, 'steady', Date.now(), { results: [7] });
  assert.equal((await other.get(1, 'steady', Date.now()))?.results, [7]);
});

s.run();
