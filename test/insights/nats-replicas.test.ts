// Insights over NATS with real processes: one `hedgerow serve` and two `hedgerow aggregate`
// replicas on a real nats-server. Events captured through serve are answered by the
// replicas (read-your-writes: a replica answers once it has loaded what the stream held
// when the query was made); both replicas take queries from the queue group; a replica
// SIGKILLed with queries in flight leaves them to the other; restarted, it catches up to the
// stream's end and answers the same. serve runs no DuckDB of its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from 'nats';
import { cliAggregate, cliInit, cliServe, cliStop, type CliKeys } from '../helpers/cli-server.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { postJson, request } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';
import { STREAM } from '../../src/log/nats-stream.js';
import { STATUS_INTERVAL_MS } from '../../src/insights/nats-protocol.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
// Long enough for a query a killed replica held to be asked again after the engine's
// silence bound (5 s) and answered; short, since the last test waits all of it out.
const QUERY_TIMEOUT_MS = 12_000;

const s = suite('insights over NATS: hedgerow aggregate replicas');
const nats = natsServerForSuite();
const dirs = { serve: tempDir(), b: tempDir(), c: tempDir() };
let keys: CliKeys;
let serve: { child: ChildProcess; url: string };
const replicas: Record<'b' | 'c', { child: ChildProcess; output(): string } | null> = { b: null, c: null };

const childEnv = () => ({
  NATS_URL: nats.server().url, HEDGEROW_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
});
const replicaName = (r: 'b' | 'c') => `${hostname()}:${dirs[r]}`;

const day = (offset: number, hour = 12) => {
  const d = new Date();
  d.setUTCHours(hour, 0, 0, 0);
  return new Date(d.getTime() + offset * 86_400_000).toISOString();
};
const ev = (event: string, distinct_id: string, timestamp: string, properties: Record<string, unknown> = {}) =>
  ({ uuid: randomUUID(), event, distinct_id, timestamp, properties });
const pageviews = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-3d' } };
const dau = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-3d' } };

// Queries a replica answered (every 200 to a blocking query: serve runs no DuckDB).
let answered = 0;

async function query(q: unknown, refresh = 'force_blocking') {
  const r = await request(`${serve.url}/api/environments/${keys.project_id}/query/`, {
    method: 'POST', headers: { Authorization: `Bearer ${keys.personal_api_key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: q, refresh }),
  });
  if (r.status === 200) answered++;
  return r;
}

async function capture(batch: unknown[]) {
  assert.is((await postJson(`${serve.url}/batch/`, { api_key: keys.project_api_key, batch })).status, 200);
}

async function metric(name: string, replica: 'b' | 'c'): Promise<number | null> {
  const text = await (await fetch(`${serve.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{replica="${replicaName(replica)}"}`));
  return line === undefined ? null : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function streamLastSeq(): Promise<number> {
  const nc = await connect({ servers: nats.server().url });
  try {
    return (await (await nc.jetstreamManager()).streams.info(STREAM)).state.last_seq;
  } finally {
    await nc.close();
  }
}

const signal = (r: 'b' | 'c', sig: NodeJS.Signals) => replicas[r]!.child.kill(sig);

// uvu reports nothing of an error thrown by `before`: kept, and thrown by every test.
let setupFailure: unknown = null;
s.before(async () => {
  try {
    await nats.start();
    keys = cliInit(dirs.serve, childEnv());
    serve = await cliServe(dirs.serve, childEnv());
    [replicas.b, replicas.c] = await Promise.all([cliAggregate(dirs.b, childEnv()), cliAggregate(dirs.c, childEnv())]);
    // Running is not yet answering: on a loaded machine a replica's columnar store can still
    // be opening, and NATS hands every query to the other. Both have published a status once
    // they take queries. Seconds away: /metrics read every 100 ms, not 25.
    await eventually(async () => (await metric('hedgerow_insights_replica_position', 'b')) !== null
      && (await metric('hedgerow_insights_replica_position', 'c')) !== null, 30_000, 100);
  } catch (err) {
    setupFailure = err;
  }
});
s.before.each(() => { if (setupFailure) throw setupFailure; });

s.after(async () => {
  for (const r of [replicas.b, replicas.c]) if (r) await cliStop(r.child, 'SIGKILL');
  if (serve) await cliStop(serve.child, 'SIGKILL');
  await nats.close();
  for (const d of Object.values(dirs)) rmSync(d, { recursive: true, force: true });
});

s('hedgerow aggregate without NATS_URL ends at once with a clear error', () => {
  const env = { ...process.env };
  delete env.NATS_URL;
  const r = spawnSync(process.execPath, [MAIN, 'aggregate', '--data', tempDir()], { encoding: 'utf8', env });
  assert.is(r.status, 1);
  assert.match(r.stderr, 'hedgerow aggregate needs NATS_URL');
  const nats = spawnSync(process.execPath, [MAIN, 'serve', '--data', tempDir()], { encoding: 'utf8', env: { ...env, HEDGEROW_INSIGHTS: 'nats' } });
  assert.is(nats.status, 2);
  assert.match(nats.stderr, 'HEDGEROW_INSIGHTS=nats needs NATS_URL');
});

s('events captured through serve: the first query after the 200 counts every one of them (persons resolved by the replica)', async () => {
  nats.server();
  await capture([
    ev('$pageview', 'anon-1', day(-2, 9)),
    ev('$pageview', 'anon-1', day(-2, 10)),
    ev('$identify', 'user-1', day(-2, 11), { $anon_distinct_id: 'anon-1', $set: { email: 'one@example.com' } }),
    ev('$pageview', 'user-1', day(-1)),
    ev('$pageview', 'user-2', day(-1), { $browser: 'Safari' }),
    ev('$pageview', 'user-2', day(0, 0)),
  ]);
  const r = await query(pageviews);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.results[0].count, 5);
  const users = await query(dau);
  assert.is(users.status, 200);
  assert.equal(users.body.results[0].data, [0, 1, 2, 1]);
  // serve has no columnar store of its own.
  assert.not.ok(existsSync(join(dirs.serve, 'insights.duckdb')));
  assert.ok(existsSync(join(dirs.b, 'insights.duckdb')));
  assert.ok(existsSync(join(dirs.c, 'insights.duckdb')));
});

s('both replicas answer queries, and report their loaded position', async () => {
  for (let i = 0; i < 16; i++) {
    const r = await query(pageviews);
    assert.is(r.status, 200);
    assert.is(r.body.results[0].count, 5);
  }
  const b = await metric('hedgerow_insights_replica_answers', 'b');
  const c = await metric('hedgerow_insights_replica_answers', 'c');
  assert.ok(b !== null && b > 0, `replica b answered ${b}`);
  assert.ok(c !== null && c > 0, `replica c answered ${c}`);
  assert.is(b! + c!, 18);
  const last = await streamLastSeq();
  await eventually(async () => (await metric('hedgerow_insights_replica_position', 'b')) === last
    && (await metric('hedgerow_insights_replica_position', 'c')) === last
    && (await metric('hedgerow_insights_replica_lag_records', 'b')) === 0, 10_000);
});

s('an answer larger than a NATS message (1 MB) arrives whole, in parts', async () => {
  // 2-byte characters: a part boundary falls inside one.
  const blob = (c: string) => c.repeat(300_000);
  await capture([ev('big', 'user-9', new Date().toISOString(), { blob: blob('é') }), ev('big', 'user-9', new Date(Date.now() - 1000).toISOString(), { blob: blob('ü') })]);
  const r = await query({ kind: 'EventsQuery', select: ['properties.blob'], event: 'big', orderBy: ['timestamp DESC'] });
  assert.is(r.status, 200, JSON.stringify(r.body).slice(0, 500));
  assert.equal(r.body.results.map((row: string[]) => row[0]), [blob('é'), blob('ü')]);
});

s('a replica SIGKILLed with queries in flight: the other answers them all', async () => {
  // Replicas publish their counts every STATUS_INTERVAL_MS: read them once they add up to
  // every answer so far (each count is at most its replica's own, so both are then current).
  const answers = async () => ({ b: await metric('hedgerow_insights_replica_answers', 'b'), c: await metric('hedgerow_insights_replica_answers', 'c') });
  const before = await eventually(async () => {
    const now = await answers();
    return now.b !== null && now.c !== null && now.b + now.c === answered ? now : null;
  }, 10 * STATUS_INTERVAL_MS, 100);
  // Frozen, both hold the queries NATS gives them; then one dies with its share unanswered.
  signal('b', 'SIGSTOP');
  signal('c', 'SIGSTOP');
  const inFlight = Array.from({ length: 8 }, () => query(dau));
  // Time for NATS to hand the queries to the frozen replicas: nothing a frozen process
  // does tells when it has them.
  await new Promise((r) => setTimeout(r, 500));
  await cliStop(replicas.b!.child, 'SIGKILL');
  replicas.b = null;
  signal('c', 'SIGCONT');
  for (const r of await Promise.all(inFlight)) {
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.results[0].data, [0, 1, 2, 1]);
  }
  // Answered 200, so before the query timeout (which answers 503).
  assert.is(await metric('hedgerow_insights_replica_answers', 'b'), before.b);
  assert.is(await metric('hedgerow_insights_replica_answers', 'c'), before.c! + 8);
});

s('background queries are cancelled through the same interface', async () => {
  signal('c', 'SIGSTOP');
  try {
    const started = await request(`${serve.url}/api/environments/${keys.project_id}/query/`, {
      method: 'POST', headers: { Authorization: `Bearer ${keys.personal_api_key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: dau, refresh: 'force_async', client_query_id: 'cancel-me' }),
    });
    assert.is(started.status, 202, JSON.stringify(started.body));
    const del = await request(`${serve.url}/api/environments/${keys.project_id}/query/cancel-me/`, {
      method: 'DELETE', headers: { Authorization: `Bearer ${keys.personal_api_key}` },
    });
    assert.is(del.status, 204);
    const status = await request(`${serve.url}/api/environments/${keys.project_id}/query/cancel-me/`, {
      headers: { Authorization: `Bearer ${keys.personal_api_key}` },
    });
    assert.is(status.body.query_status.complete, true);
    assert.is(status.body.query_status.error, true);
  } finally {
    signal('c', 'SIGCONT');
  }
});

s('the killed replica restarts, catches up to the stream’s end and answers the same as the other', async () => {
  // While it is down: more events, answered by the live replica.
  await capture([ev('$pageview', 'user-3', day(0, 1)), ev('$pageview', 'user-1', day(0, 2)), ev('$pageview', 'user-4', day(-1, 3))]);
  const fromC = await query(dau);
  assert.is(fromC.status, 200);
  assert.equal(fromC.body.results[0].data, [0, 1, 3, 3]);
  const last = await streamLastSeq();

  replicas.b = await cliAggregate(dirs.b, childEnv());
  // Its store opening and catching up take seconds: /metrics read every 100 ms, not 25.
  await eventually(async () => (await metric('hedgerow_insights_replica_position', 'b')) === last, 20_000, 100);
  const answeredBefore = (await metric('hedgerow_insights_replica_answers', 'b')) ?? 0;
  // Only the restarted replica is left to answer.
  await cliStop(replicas.c!.child, 'SIGTERM');
  replicas.c = null;
  const fromB = await query(dau);
  assert.is(fromB.status, 200, JSON.stringify(fromB.body));
  // The same but for the moment "-3d" was resolved at.
  const counts = (results: { data: number[]; days: string[]; labels: string[]; count: number }[]) =>
    results.map(({ data, days, labels, count }) => ({ data, days, labels, count }));
  assert.equal(counts(fromB.body.results), counts(fromC.body.results));
  const counted = await query(pageviews);
  assert.is(counted.body.results[0].count, 8);
  assert.is(await metric('hedgerow_insights_replica_answers', 'b'), answeredBefore + 2);
});

s('no replica at all: the query waits out its time limit and answers 503 with PostHog’s body', async () => {
  await cliStop(replicas.b!.child, 'SIGKILL');
  replicas.b = null;
  const r = await query(pageviews);
  assert.is(r.status, 503);
  assert.is(r.body.type, 'server_error');
});

s.run();
