// A node that cannot follow the cluster says so (issue 27, item 4). Three `hedgerow serve`
// nodes on a three-server JetStream cluster (R3); node C reaches the servers only through TCP
// proxies the test can cut (a network partition of that node alone).
// - The server hosting a node's control-stream consumer, while that node is connected to
//   another server, is SIGKILLed. The consumer dies with it and nothing tells the node; one that
//   submits nothing used to notice only 16–32 s later. Each follower compares its position with
//   the stream's end and makes its consumer anew: a flag created afterwards is served by /flags
//   on every node within 10 s, and the stalled nodes count the consumer they made anew.
// - Node C is cut off. It cannot learn the control stream's end: past the stall bound its
//   /_readiness answers 503 naming the control stream (and the hog telemetry stream), while
//   its /flags keeps serving the flags it has; healed, it serves what it missed and its
//   followers count it ready again.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { connect } from 'nats';
import { cliInit, cliServe, cliStop, type CliKeys } from '../helpers/cli-server.js';
import type { ClusterNode } from '../helpers/cluster.js';
import { startNatsCluster, type NatsCluster } from '../helpers/nats.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { bearer, postJson, request } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { DEFAULT_TIMINGS } from '../../src/cluster/index.js';

const s = suite('a node that cannot follow the cluster says so');
const START_MS = 60_000;
const RECOVER_MS = 30_000;
// The issue asks for every node to serve a flag created after the loss within 10 s; how soon
// they do is printed and measured in bench/RESULTS.md, not asserted (no wall-clock asserts:
// a loaded machine took 9 s to rebuild a consumer when the killed server led the meta group).
// The test asserts that every node serves it, with room for such a machine.
const SERVED_WITHIN_MS = 30_000;
// A look at where the followers' consumers and connections are opens a NATS connection and
// asks every server: not every 25 ms.
const PLACEMENT_POLL_MS = 250;
// C's readiness while it waits out the stall bound (5 s): asked every 100 ms, not 200 times.
const STALL_POLL_MS = 100;

let cluster: NatsCluster | null = null;
let failure: unknown = null;
let keys: CliKeys;
const proxies: TcpProxy[] = [];
const dirs: string[] = [];
const nodes: ClusterNode[] = [];
const env = (natsUrl: string) => ({ NATS_URL: natsUrl, HEDGEROW_NATS_REPLICAS: '3' });

s.before(async () => {
  try {
    // Told nothing of the servers' own addresses, C reaches them only through its proxies.
    cluster = await startNatsCluster(3, { noAdvertise: true });
    for (const server of cluster.servers) proxies.push(await startTcpProxy(server.port));
    dirs.push(...['a', 'b', 'c'].map((n) => tempDir(`hedgerow-stale-${n}-`)));
    keys = cliInit(dirs[0], env(cluster.url));
    const urls = [cluster.url, cluster.url, proxies.map((p) => p.natsUrl).join(',')];
    // A start whose JetStream requests timed out (a fresh R3 cluster on a loaded machine: seen
    // at load average 15) is tried once more; what is under test comes after.
    const serve = async (i: number) => {
      const start = () => cliServe(dirs[i], env(urls[i]), START_MS);
      return { dir: dirs[i], ...(await start().catch((err: Error) => { if (/TIMEOUT/.test(err.message)) return start(); throw err; })) };
    };
    // A first: it makes every R3 asset, which three nodes at once on a loaded machine were seen
    // to time out doing.
    nodes.push(await serve(0));
    nodes.push(...await Promise.all([serve(1), serve(2)]));
  } catch (err) {
    // uvu swallows a failing hook: each test says why instead.
    failure = err;
  }
});
s.after(async () => {
  // SIGKILL: what a node writes on its way out is not under test (and a graceful stop after a
  // server loss was seen to hang: replicated-nats).
  for (const n of nodes) await cliStop(n.child, 'SIGKILL');
  for (const p of proxies) await p.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await cluster?.close();
});

function started(): { c: NatsCluster; A: ClusterNode; B: ClusterNode; C: ClusterNode } {
  if (failure) throw failure;
  return { c: cluster!, A: nodes[0], B: nodes[1], C: nodes[2] };
}

const flag = (key: string) => ({ key, name: key, filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
const sleep = (ms: number) => new Promise<false>((r) => setTimeout(() => r(false), ms));
// Each request bounded: one left hanging fails its poll instead of holding the test.
const createFlag = (n: ClusterNode, key: string) => request(`${n.url}/api/projects/${keys.project_id}/feature_flags/`, {
  method: 'POST', signal: AbortSignal.timeout(RECOVER_MS),
  headers: { ...bearer(keys.personal_api_key), 'Content-Type': 'application/json' }, body: JSON.stringify(flag(key)),
});
// The flags /flags evaluates as enabled for one person on node `n`; null when it does not answer 200.
async function served(n: ClusterNode): Promise<Set<string> | null> {
  const r = await postJson(`${n.url}/flags/?v=2`, { api_key: keys.project_api_key, distinct_id: 'someone' }).catch(() => null);
  if (r?.status !== 200) return null;
  return new Set(Object.entries(r.body.flags as Record<string, { enabled: boolean }>).filter(([, f]) => f.enabled).map(([k]) => k));
}
const readiness = (n: ClusterNode) => request(`${n.url}/_readiness`, { signal: AbortSignal.timeout(RECOVER_MS) });
// Waits until the node's control stream and hog telemetry checks hold, with no reason given for either.
async function followersReady(n: ClusterNode): Promise<void> {
  const ok = (b: { checks?: Record<string, boolean>; reasons?: Record<string, string> }) =>
    b.checks?.control === true && b.checks.hog_telemetry === true && !b.reasons?.control && !b.reasons?.hog_telemetry;
  await eventually(async () => ok((await readiness(n)).body), RECOVER_MS)
    .catch(async () => assert.equal((await readiness(n)).body, {}, `${n.url}: followers not ready`));
}

// Where each node's control-stream follower stands, by the node's pid: the server its
// consumer is on (the live one: a pull waiting on it) and the server its control connection
// is on. A follower names its consumers and the process its connections after its node name
// (host:pid:random).
type Placement = Map<number, { consumer: string; connection: string }>;
async function placement(c: NatsCluster, pids: number[]): Promise<Placement | null> {
  const nc = await connect({ servers: c.url.split(','), maxReconnectAttempts: -1 });
  const found = new Map<number, { consumer?: string; connection?: string }>(pids.map((p) => [p, {}]));
  const pidIn = (name: string) => pids.find((p) => name.includes(`-${p}-`) || name.includes(`:${p}:`));
  try {
    for (const info of await (await nc.jetstreamManager()).consumers.list('HEDGEROW_CONTROL').next()) {
      const pid = pidIn(info.name);
      if (pid !== undefined && info.name.startsWith('control_') && info.num_waiting > 0 && info.cluster?.leader) found.get(pid)!.consumer = info.cluster.leader;
    }
  } finally {
    await nc.close();
  }
  for (const server of c.servers) {
    const connz = await (await fetch(`${server.monitorUrl}/connz?limit=1024`)).json() as { connections: { name?: string }[] };
    for (const conn of connz.connections) {
      const pid = conn.name?.startsWith('hedgerow-control ') ? pidIn(conn.name) : undefined;
      if (pid !== undefined) found.get(pid)!.connection = server.name;
    }
  }
  const out: Placement = new Map();
  for (const [pid, f] of found) {
    if (!f.consumer || !f.connection) return null;
    out.set(pid, { consumer: f.consumer, connection: f.connection });
  }
  return out;
}

s('the server hosting the followers\' consumers is SIGKILLed: a flag created afterwards is served by every node', async () => {
  const { c, A, B, C } = started();
  for (const n of [A, B, C]) {
    await eventually(async () => (await readiness(n)).status === 200, RECOVER_MS)
      .catch(async () => assert.equal((await readiness(n)).body, {}, `${n.url} not ready`));
  }
  assert.is((await createFlag(A, 'before-loss')).status, 201);
  for (const n of [A, B, C]) await eventually(async () => (await served(n))?.has('before-loss'), RECOVER_MS);

  // The server lost: one hosting the control-stream consumer of a node connected to another
  // server (its consumer dies and nothing tells it: the case that stalled), the most such nodes.
  const pids = [A, B, C].map((n) => n.child.pid!);
  const stalledBy = (where: Placement, server: string) => pids.filter((p) => where.get(p)!.consumer === server && where.get(p)!.connection !== server);
  const choose = (where: Placement) => c.servers.map((m) => m.name).sort((x, y) => stalledBy(where, y).length - stalledBy(where, x).length)[0];
  // Each look connects to the servers and asks all three (PLACEMENT_POLL_MS).
  let where = await eventually(() => placement(c, pids), RECOVER_MS, PLACEMENT_POLL_MS);
  // Every consumer on its own node's server (1 in 27): C's connection is moved off its server
  // (that proxy cut until C is connected elsewhere) until one is not.
  for (let i = 0; stalledBy(where, choose(where)).length === 0; i++) {
    assert.ok(i < 5, `no node's control consumer on another server than its connection: ${JSON.stringify([...where])}`);
    const on = where.get(C.child.pid!)!.connection;
    const proxy = proxies[c.servers.findIndex((m) => m.name === on)];
    proxy.cut();
    where = await eventually(async () => { const w = await placement(c, pids); return w && w.get(C.child.pid!)!.connection !== on ? w : null; }, RECOVER_MS, PLACEMENT_POLL_MS);
    proxy.heal();
  }
  const lostName = choose(where);
  const lost = c.servers.find((m) => m.name === lostName)!;
  const stalled = [A, B, C].filter((n) => stalledBy(where, lostName).includes(n.child.pid!));
  // For the record: losing JetStream's meta leader too delays every consumer's creation until
  // the servers left elect another (seconds).
  const meta = ((await (await fetch(`${lost.monitorUrl}/jsz`)).json()) as { meta_cluster?: { leader?: string } }).meta_cluster?.leader;
  process.stderr.write(`  control consumer and connection by node: ${JSON.stringify([...where.values()])}; killing ${lostName} ` +
    `(meta leader: ${meta}), which holds the consumer of ${stalled.length} node(s) connected elsewhere\n`);
  await lost.stop({ crash: true });
  const killedAt = Date.now();

  // Written through a node that is not stalled, when there is one: a node answers a write once
  // it applied it itself. JetStream elects new leaders: until then a write may be refused (503),
  // never lost. Each attempt uses a key of its own, as a refused write may still have been stored.
  const writer = [A, B, C].find((n) => !stalled.includes(n)) ?? A;
  let attempt = 0;
  const key = await eventually(async () => {
    const k = `after-loss-${++attempt}`;
    const r = await createFlag(writer, k).catch(() => ({ status: 0 }));
    return r.status === 201 ? k : sleep(250);
  }, RECOVER_MS);
  const createdAt = Date.now();

  // When each node first served it (ms after its creation), for the record.
  const servedAfter = new Map<ClusterNode, number>();
  const missing = async () => (await Promise.all([A, B, C].map(async (n) => {
    if (servedAfter.has(n)) return null;
    if (!(await served(n))?.has(key)) return n.url;
    servedAfter.set(n, Date.now() - createdAt);
    return null;
  }))).filter(Boolean);
  // A node that did not serve it in time is reported with where its control follower stands.
  const follower = async (n: ClusterNode) => ((await request(`${n.url}/metrics`)).body as string).split('\n')
    .filter((l) => /^hedgerow_(stream_follower_\w+\{follower="control"\}|control_\w+) /.test(l)).join('; ');
  await eventually(async () => (await missing()).length === 0, SERVED_WITHIN_MS).catch(async () => {
    const late = [A, B, C].filter((n) => !servedAfter.has(n));
    assert.equal(await Promise.all(late.map(async (n) => `${n.url} (pid ${n.child.pid}): ${await follower(n)}`)), [],
      `${key} not served within ${SERVED_WITHIN_MS} ms of its creation`);
  });
  const stalls = async (n: ClusterNode) => Number(/^hedgerow_stream_follower_stalls_total\{follower="control"\} (\d+)$/m
    .exec((await request(`${n.url}/metrics`)).body as string)?.[1]);
  process.stderr.write(`  ${key} (attempt ${attempt}, ${createdAt - killedAt} ms after the kill) served by A, B, C ` +
    `${[A, B, C].map((n) => servedAfter.get(n)).join(', ')} ms after it was created; control consumers made anew as stalled: ` +
    `${(await Promise.all([A, B, C].map(stalls))).join(', ')}\n`);
  // The nodes whose consumer died unannounced found it stalled (their stream's end ahead of them).
  for (const n of stalled) assert.ok(await stalls(n) >= 1, `${n.url} made no consumer anew as stalled`);
  // Every node's followers count it ready again (its consumer threads, which a lost server may
  // have restarted, are their own check).
  for (const n of [A, B, C]) await followersReady(n);
});

s('a node cut off from the cluster answers /_readiness 503 saying why, keeps serving the flags it has, and follows again once back', async () => {
  const { A, B, C } = started();
  for (const p of proxies) p.cut();
  const cutAt = Date.now();
  assert.is((await createFlag(A, 'during-partition')).status, 201);

  // Past the stall bound without learning the streams' ends, C is not ready, and says why.
  const unready = await eventually(async () => {
    const r = await readiness(C);
    return r.status === 503 && r.body.checks.control === false && r.body.checks.hog_telemetry === false ? r : null;
  }, RECOVER_MS, STALL_POLL_MS).catch(async () => { assert.equal((await readiness(C)).body, {}, 'C still ready'); throw new Error('C still ready'); });
  process.stderr.write(`  C not ready ${Date.now() - cutAt} ms after the cut\n`);
  assert.is(unready.body.status, 'unavailable');
  // Cut off, it learns nothing of the streams' ends (or, had it been behind already, stays behind).
  const stale = /^(the stream's end not learnt for \d+\.\d s|\d+ message\(s\) behind the stream \(applied through \d+ of \d+\) for \d+\.\d s), more than the stall bound of 5\.0 s$/;
  assert.match(unready.body.reasons.control, new RegExp(`^control stream HEDGEROW_CONTROL: ${stale.source.slice(1)}`));
  assert.match(unready.body.reasons.hog_telemetry, new RegExp(`^hog telemetry stream: ${stale.source.slice(1)}`));
  const metrics = (await request(`${C.url}/metrics`)).body as string;
  const unknown = Number(/^hedgerow_stream_follower_end_unknown_seconds\{follower="control"\} ([\d.]+)$/m.exec(metrics)?.[1]);
  assert.ok(unknown > DEFAULT_TIMINGS.stallMs / 1000, `end unknown for ${unknown} s`);

  // Meanwhile C keeps serving what it has; A and B serve the flag created during the cut.
  const onC = await served(C);
  assert.ok(onC?.has('before-loss') && !onC.has('during-partition'), `C serves ${[...onC ?? []].join(', ')}`);
  for (const n of [A, B]) await eventually(async () => (await served(n))?.has('during-partition'), RECOVER_MS);
  await followersReady(A);

  for (const p of proxies) p.heal();
  await eventually(async () => (await served(C))?.has('during-partition'), RECOVER_MS);
  // Its followers count it ready again. (Its consumer threads, which died while NATS was out of
  // reach, count as crash-looping until they ran for a minute: src/log/consumers/supervise.ts.)
  await followersReady(C);
  // Caught up: nothing of the control stream left to apply, once a command written meanwhile
  // has reached it (the nodes go on writing: the usage the /flags requests counted is flushed
  // to the control stream every 10 s, and one run found C one message behind here).
  const lagLine = /^hedgerow_stream_follower_lag_messages\{follower="control"\} 0$/m;
  const metricsOfC = async () => (await request(`${C.url}/metrics`)).body as string;
  const after = await eventually(async () => { const m = await metricsOfC(); return lagLine.test(m) ? m : null; }, RECOVER_MS)
    .catch(metricsOfC);
  assert.match(after, lagLine);
  assert.match(after, /^hedgerow_stream_follower_behind_seconds\{follower="control"\} 0$/m);
});

s.run();
