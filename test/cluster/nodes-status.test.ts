// `hedgerow status` shows the cluster (issue 19, operations): two `hedgerow serve` nodes and
// a `hedgerow aggregate` replica on one real nats-server announce themselves in a KV bucket
// (src/ops/announce.ts); `hedgerow status` on node A's data dir lists all three, with what
// each says of itself. A node shut down cleanly leaves the list at once; one SIGKILLed stays
// until its entry's TTL has passed, then leaves it. The cluster's timings are scaled down
// (HEDGEROW_CLUSTER_TIME_SCALE) so that the TTL waited out is 9 s rather than 15 s; it stays
// long enough for `hedgerow status` to start and read the entry of a node just killed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { cliAggregate, cliRunWith, cliStop } from '../helpers/cli-server.js';
import { clusterForSuite } from '../helpers/cluster.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import type { NodeAnnouncement } from '../../src/ops/announce.js';
import { DEFAULT_TIMINGS } from '../../src/cluster/index.js';

const TIME_SCALE = 0.6;
const NODE_TTL_MS = DEFAULT_TIMINGS.nodeTtlMs * TIME_SCALE;
// Each poll of `hedgerow status` starts a process: polled every 25 ms, waiting out a TTL
// would start dozens of them.
const CLI_POLL_MS = 300;

const s = suite('hedgerow status: the cluster’s live processes');
const cluster = clusterForSuite({
  nodes: 2, prefix: 'hedgerow-nodes',
  env: (url) => ({ NATS_URL: url, HEDGEROW_CLUSTER_TIME_SCALE: String(TIME_SCALE) }),
});
const { node, nodes } = cluster;
const replicaDir = tempDir('hedgerow-nodes-replica-');
let replica: ChildProcess | null = null;
s.before(async () => {
  await cluster.start();
  replica = (await cliAggregate(replicaDir, cluster.env()).catch(() => null))?.child ?? null;
});
s.after(async () => {
  if (replica) await cliStop(replica, 'SIGKILL');
  await cluster.stop();
  rmSync(replicaDir, { recursive: true, force: true });
});

const [A, B] = [0, 1];
const VERSION = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')).version as string;
const portOf = (url: string) => new URL(url).port;

async function statusJson(): Promise<{ nodes: NodeAnnouncement[] }> {
  const r = await cliRunWith(cluster.env(), node(A).dir, 'status', '--json');
  assert.is(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}
const serveNodes = (st: { nodes: NodeAnnouncement[] }) => st.nodes.filter((n) => n.role === 'serve');

s('both serve nodes and the replica are listed, each with what it says of itself', async () => {
  assert.ok(replica, 'the aggregate replica did not start');
  const st = await eventually(async () => {
    const got = await statusJson();
    // Their consumers caught up, as announced at their last refresh; and one destinations
    // claim (on a loaded machine a claim can move between the nodes, and the node it left
    // lists it until its next announcement).
    return serveNodes(got).length === 2 && got.nodes.every((n) => n.ready && n.consumers.every((c) => c.lag_records === 0))
      && serveNodes(got).filter((n) => n.claims.includes('destinations')).length === 1 ? got : null;
  }, 30_000, CLI_POLL_MS);
  const serves = serveNodes(st);
  assert.equal(serves.map((n) => n.pid).sort(), [node(A).child.pid, node(B).child.pid].sort());
  for (const i of [A, B]) {
    const n = serves.find((x) => x.pid === node(i).child.pid)!;
    assert.is(n.listen, `127.0.0.1:${portOf(node(i).url)}`);
    assert.match(n.name, new RegExp(`:${n.pid}:[0-9a-f]{8}$`));
    assert.is(n.version, VERSION);
    assert.ok(Date.parse(n.started_at) <= Date.parse(n.announced_at));
    assert.equal(n.control?.lag, 0);
    assert.ok(n.consumers.some((c) => c.name === 'event_store'));
  }
  // Exactly one serve node runs the destinations consumer for the cluster.
  assert.is(serves.filter((n) => n.claims.includes('destinations')).length, 1);
  const aggregate = st.nodes.filter((n) => n.role === 'aggregate');
  assert.is(aggregate.length, 1);
  assert.equal([aggregate[0].pid, aggregate[0].listen, aggregate[0].control], [replica!.pid, null, null]);
  assert.equal(aggregate[0].consumers.map((c) => c.name).sort(), ['event_store', 'insights']);
  // The text form lists them too.
  const text = await cliRunWith(cluster.env(), node(A).dir, 'status');
  assert.is(text.code, 0, text.stderr);
  assert.match(text.stdout, 'cluster: 3 live processes');
  for (const i of [A, B]) assert.match(text.stdout, `on 127.0.0.1:${portOf(node(i).url)}: ready`);
});

s('a node shut down cleanly leaves the list at once', async () => {
  const pid = node(B).child.pid;
  await cliStop(node(B).child, 'SIGTERM');
  const st = await statusJson();
  assert.equal(serveNodes(st).map((n) => n.pid), [node(A).child.pid]);
  assert.not.ok(st.nodes.some((n) => n.pid === pid));
});

s('a node SIGKILLed stays listed until its entry expires, then leaves', async () => {
  nodes[B] = await cluster.serve(node(B).dir);
  const pid = node(B).child.pid;
  await eventually(async () => serveNodes(await statusJson()).some((n) => n.pid === pid), 20_000, CLI_POLL_MS);
  await cliStop(node(B).child, 'SIGKILL');
  const killed = Date.now();
  assert.ok(serveNodes(await statusJson()).some((n) => n.pid === pid), 'gone before its TTL');
  await eventually(async () => !(await statusJson()).nodes.some((n) => n.pid === pid), NODE_TTL_MS + 20_000, CLI_POLL_MS);
  const tookMs = Date.now() - killed;
  // How soon after its TTL is measured by bench/latencies.js, not asserted here.
  process.stderr.write(`  a SIGKILLed node left the list ${tookMs} ms after the kill (TTL ${NODE_TTL_MS} ms)\n`);
  assert.equal(serveNodes(await statusJson()).map((n) => n.pid), [node(A).child.pid]);
});

s.run();
