// Issue 19: the nats-server crashed (SIGKILL) and restarted under load, with JetStream
// file storage, loses nothing it acknowledged. Two real `hedgerow serve` nodes on one
// real nats-server; clients capture events (single and /batch/, each with a known uuid)
// and create feature flags alternately on both nodes while the server is killed and,
// about a second later, started again on the same port and store dir. Requests during
// the outage may fail (503, connection errors); every one answered 200/201 must be on
// both nodes afterwards, and nothing may be dead-lettered.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { type CliKeys } from '../helpers/cli-server.js';
import { clusterForSuite, type ClusterNode as Node } from '../helpers/cluster.js';
import { postJson, request, bearer } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';

const s = suite('nats-server restarted under load');
// Writes acknowledged before the kill: the load runs until both kinds reach these.
const EVENTS_BEFORE_KILL = 50;
const FLAGS_BEFORE_KILL = 2;
// How long the server stays down: time passing is the point (writes meet the outage).
const DOWN_MS = 1000;
// Writes acknowledged after the restart: each kind of writer stops once it has these.
const EVENTS_AFTER_RESTART = 50;
const FLAGS_AFTER_RESTART = 2;
// A capturing client's pause after each request: the number of events is not what is
// tested (each acknowledged one is read back on both nodes), and unpaced clients
// captured hundreds more while the flag writer reached its count.
const CAPTURE_PACE_MS = 50;

// Embedded insights (one worker of each kind: the test profile) on two nodes.
const cluster = clusterForSuite({
  nodes: 2, prefix: 'hedgerow-restart',
  env: (url) => ({ NATS_URL: url, HEDGEROW_INSIGHTS: 'embedded' }),
});
const { nats, node } = cluster;
let keys: CliKeys;
s.before(async () => { await cluster.start(); keys = cluster.keys(); });
s.after(cluster.stop);

function api(n: Node, method: string, path: string, body?: unknown) {
  return request(`${n.url}${path}`, {
    method,
    headers: { ...bearer(keys.personal_api_key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
// A request that may fail during the outage: its status, or 0 for a connection error.
async function attempt(p: Promise<{ status: number }>): Promise<number> {
  try {
    return (await p).status;
  } catch {
    return 0;
  }
}
// A client's pause after a failed request, and the outage's length.
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

s('every event and flag acknowledged while the nats-server crashed and restarted is on both nodes', async () => {
  const [A, B] = [node(0), node(1)];
  for (const n of [A, B]) await eventually(async () => (await request(`${n.url}/_readiness`)).status === 200, 30_000);
  const started = Date.now();
  const acked: string[] = [];
  const flagsAcked: string[] = [];
  const statuses = new Map<number, number>();
  const count = (st: number) => statuses.set(st, (statuses.get(st) ?? 0) + 1);
  let stop = false;
  // Set once the server is back: then each kind of writer stops when it has its count.
  let restarted = false;
  const eventsDone = () => restarted && acked.length > atRestart.events + EVENTS_AFTER_RESTART;
  const flagsDone = () => restarted && flagsAcked.length > atRestart.flags + FLAGS_AFTER_RESTART;

  const capturer = async (c: number) => {
    for (let i = 0; !stop && !eventsDone(); i++) {
      const target = (i + c) % 2 ? B : A;
      const batch = i % 2 === 0;
      const events = Array.from({ length: batch ? 5 : 1 }, (_, k) => ({
        event: 'load', distinct_id: `client-${c}`, uuid: randomUUID(), properties: { c, i, k },
      }));
      const st = await attempt(batch
        ? postJson(`${target.url}/batch/`, { api_key: keys.project_api_key, batch: events })
        : postJson(`${target.url}/i/v0/e/`, { api_key: keys.project_api_key, ...events[0] }));
      count(st);
      if (st === 200) acked.push(...events.map((e) => e.uuid));
      await sleep(st === 200 ? CAPTURE_PACE_MS : 20);
    }
  };
  const flagWriter = async () => {
    for (let i = 0; !stop && !flagsDone(); i++) {
      const key = `restart-flag-${i}`;
      const st = await attempt(api(i % 2 ? B : A, 'POST', `/api/projects/${keys.project_id}/feature_flags/`, {
        key, name: key, filters: { groups: [{ properties: [], rollout_percentage: 100 }] },
      }));
      count(1000 + st);
      if (st === 201) flagsAcked.push(key);
      else await sleep(20);
    }
  };
  let atKill = { events: 0, flags: 0 };
  let atRestart = { events: 0, flags: 0 };
  const outage = async () => {
    await eventually(async () => acked.length >= EVENTS_BEFORE_KILL && flagsAcked.length >= FLAGS_BEFORE_KILL, 60_000).catch(() => undefined);
    atKill = { events: acked.length, flags: flagsAcked.length };
    await nats.server().stop({ crash: true });
    await sleep(DOWN_MS);
    await nats.server().restart();
    atRestart = { events: acked.length, flags: flagsAcked.length };
    restarted = true;
    process.stderr.write(`  nats-server killed at ${JSON.stringify(atKill)} acknowledged, back at ${JSON.stringify(atRestart)}\n`);
  };
  const load = [0, 1, 2, 3].map(capturer).concat(flagWriter());
  await outage();
  // The load goes on until both nodes acknowledge writes again after the restart (the
  // clients reconnect), so that writes on both sides of the outage are checked.
  await eventually(async () => eventsDone() && flagsDone(), 30_000)
    .catch(() => undefined);
  stop = true;
  await Promise.all(load);
  process.stderr.write(`  acknowledged: ${acked.length} events, ${flagsAcked.length} flags; statuses (1000+ for flags): ${JSON.stringify([...statuses])}\n`);
  assert.ok(atKill.events > 0 && atKill.flags > 0, 'writes acknowledged before the crash');
  assert.ok(acked.length > atRestart.events && flagsAcked.length > atRestart.flags, 'writes acknowledged after the restart');

  for (const n of [A, B]) {
    await eventually(async () => (await request(`${n.url}/_readiness`)).status === 200, 30_000)
      .catch(async () => assert.equal((await request(`${n.url}/_readiness`)).body, {}, `${n.url} not ready`));
  }
  // Every acknowledged event readable by uuid on both nodes.
  for (const n of [A, B]) {
    const missing = async () => {
      const out: string[] = [];
      for (const uuid of acked) {
        if ((await api(n, 'GET', `/api/environments/${keys.project_id}/events/${uuid}/`)).status !== 200) out.push(uuid);
      }
      return out;
    };
    let left = acked;
    await eventually(async () => {
      const pending = [];
      for (const uuid of left) {
        if ((await api(n, 'GET', `/api/environments/${keys.project_id}/events/${uuid}/`)).status !== 200) pending.push(uuid);
      }
      left = pending;
      return left.length === 0;
    }, 30_000).catch(async () => assert.equal(await missing(), [], `events missing on ${n.url}`));
  }
  // Every acknowledged flag on both nodes.
  const flagKeys = async (n: Node) => {
    const r = await api(n, 'GET', `/api/projects/${keys.project_id}/feature_flags/?limit=10000`);
    return r.status === 200 ? new Set((r.body.results as { key: string }[]).map((f) => f.key)) : new Set<string>();
  };
  for (const n of [A, B]) {
    await eventually(async () => { const k = await flagKeys(n); return flagsAcked.every((f) => k.has(f)); }, 30_000)
      .catch(async () => { const k = await flagKeys(n); assert.equal(flagsAcked.filter((f) => !k.has(f)), [], `flags missing on ${n.url}`); });
  }
  // Nothing set aside.
  for (const n of [A, B]) {
    const metrics = (await request(`${n.url}/metrics`)).body as string;
    assert.match(metrics, /^hedgerow_log_dead_letters 0$/m, `dead letters on ${n.url}`);
    assert.match(metrics, /^hedgerow_control_lag_commands 0$/m, `control stream lag on ${n.url}`);
  }
  process.stderr.write(`  all acknowledged writes on both nodes ${Date.now() - started} ms after the load began\n`);
});

s.run();
