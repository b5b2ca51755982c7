// `hedgerow status` shows the cluster (issue 19, operations): two `hedgerow serve` nodes and
// a `hedgerow aggregate` replica on one real nats-server announce themselves in a KV bucket
// (src/ops/announce.ts); `hedgerow status` on node A's data dir lists all three, with what
// each says of itself. A node shut down cleanly leaves the list at once; a process SIGKILLed
// (the replica) stays until its entry's TTL has passed, then leaves it. The cluster's timings
// are scaled down (HEDGEROW_CLUSTER_TIME_SCALE) so that the TTL waited out is 9 s rather than
// 15 s; it stays long enough for `hedgerow status` to start and read the entry of a process
// just killed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { cliAggregate, cliRunWith, cliStop } from '../helpers/cli-server.js';
import { clusterForSuite } from '../helpers/cluster.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { listNodes, type NodeAnnouncement } from '../../src/ops/announce.js';
import { DEFAULT_TIMINGS, type Cluster } from '../../src/cluster/index.js';
import { clusterHandles } from '../helpers/cluster-handle.js';

const TIME_SCALE = 0.6;
const NODE_TTL_MS = DEFAULT_TIMINGS.nodeTtlMs * TIME_SCALE;
// Each poll of `hedgerow status` starts a process (~0.3 s of CPU): the tests wait on the
// node list read in this process (listNodes, what the command prints), then ask the
// command, polled this far apart should the list it reads have moved meanwhile.
const CLI_POLL_MS = 300;
// The list read here this often: each read lists the bucket's keys (a consumer on the
// nats-server) and gets every entry, and an entry changes at a refresh (a third of its TTL, 3 s).
const LIST_POLL_MS = 250;

const s = suite('hedgerow status: the cluster’s live processes');
const cluster = clusterForSuite({
  nodes: 2, prefix: 'hedgerow-nodes',
  env: (url) => ({ NATS_URL: url, HEDGEROW_CLUSTER_TIME_SCALE: String(TIME_SCALE) }),
});
const { node } = cluster;
const replicaDir = tempDir('hedgerow-nodes-replica-');
let replica: ChildProcess | null = null;
const handles = clusterHandles();
// Read-only, as `hedgerow status` opens it: the HEDGEROW_NODES bucket as the nodes made it.
let reader: Cluster | null = null;
s.before(async () => {
  await cluster.start();
  replica = (await cliAggregate(replicaDir, cluster.env()).catch(() => null))?.child ?? null;
  reader = await handles.open(cluster.nats.server().url, { role: 'readonly' }).catch(() => null);
});
s.after(async () => {
  await handles.closeAll();
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
// The list `hedgerow status` reads, read here without starting a process.
async function listed(): Promise<{ nodes: NodeAnnouncement[] }> {
  assert.ok(reader, 'no cluster handle on the nats-server');
  return { nodes: await listNodes(reader!) };
}

s('both serve nodes and the replica are listed, each with what it says of itself', async () => {
  assert.ok(replica, 'the aggregate replica did not start');
  // Their consumers caught up, as announced at their last refresh; and one destinations
  // claim (on a loaded machine a claim can move between the nodes, and the node it left
  // lists it until its next announcement).
  const settled = (got: { nodes: NodeAnnouncement[] }) => serveNodes(got).length === 2
    && got.nodes.every((n) => n.ready && n.consumers.every((c) => c.lag_records === 0))
    && serveNodes(got).filter((n) => n.claims.includes('destinations')).length === 1;
  await eventually(async () => settled(await listed()), 30_000, LIST_POLL_MS);
  const st = await eventually(async () => { const got = await statusJson(); return settled(got) ? got : null; }, 30_000, CLI_POLL_MS);
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
  // The text form lists them too, read until it is as settled as the JSON form was (it is
  // another read of the list: on a loaded machine a node can be behind for a moment).
  const wanted = ['cluster: 3 live processes', ...[A, B].map((i) => `on 127.0.0.1:${portOf(node(i).url)}: ready`)];
  const text = await eventually(async () => {
    const r = await cliRunWith(cluster.env(), node(A).dir, 'status');
    return r.code !== 0 || wanted.every((w) => r.stdout.includes(w)) ? r : null;
  }, 30_000, CLI_POLL_MS);
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

// The replica, running since the start, is the process killed: the entry's TTL is the
// bucket's whatever the role (src/ops/announce.ts), and a serve node started again only to
// be killed would cost a start.
s('a process SIGKILLed (the aggregate replica) stays listed until its entry expires, then leaves', async () => {
  assert.ok(replica, 'the aggregate replica did not start');
  const pid = replica!.pid;
  await cliStop(replica!, 'SIGKILL');
  const killed = Date.now();
  assert.ok((await statusJson()).nodes.some((n) => n.pid === pid), 'gone before its TTL');
  await eventually(async () => !(await listed()).nodes.some((n) => n.pid === pid), NODE_TTL_MS + 20_000, LIST_POLL_MS);
  const tookMs = Date.now() - killed;
  const after = await eventually(async () => { const got = await statusJson(); return got.nodes.some((n) => n.pid === pid) ? null : got; }, 20_000, CLI_POLL_MS);
  // How soon after its TTL is measured by bench/latencies.js, not asserted here.
  process.stderr.write(`  a SIGKILLed process left the list ${tookMs} ms after the kill (TTL ${NODE_TTL_MS} ms)\n`);
  // Node A alone is left of the cluster.
  assert.equal(after.nodes.map((n) => n.pid), [node(A).child.pid]);
});

s.run();
