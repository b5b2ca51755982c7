// The NATS query engine and the replica's query server in one process, on a real
// nats-server and a real columnar store (the processes around them are tested in
// nats-replicas.test.ts): which replica answers a query that needs a position, what a
// silent replica, a bad query, a cancel and no replica at all come to.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type NatsConnection } from 'nats';
import { connectNatsEngine, type NatsInsightsEngine } from '../../src/insights/nats-engine.js';
import { serveQueriesOverNats, type NatsQueryServer } from '../../src/insights/nats-query-server.js';
import { encodeReplicaMessage, QUERY_QUEUE, QUERY_SUBJECT } from '../../src/insights/nats-protocol.js';
import { EngineUnavailableError, QueryCancelledError } from '../../src/insights/engine.js';
import { QueryError } from '../../src/insights/planner/errors.js';
import { overNats, type JetStream } from '../../src/cluster/index.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { eventually, postJson, startTestServer, NO_DESTINATIONS } from '../helpers/server.js';
import { apiClient } from '../helpers/api.js';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ev, openTestStore, PROJECT, type TestStore } from './helpers.js';

const s = suite('insights over NATS: engine and replica query server');
const nats = natsServerForSuite();
let store: TestStore;
const open: { close(): void | Promise<void> }[] = [];
const NOW = '2026-11-20T12:00:00Z';
const context = { projectId: PROJECT, timezone: 'UTC', weekStart: 0 as const, nowMs: Date.parse(NOW) };
const pageviews = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-3d' } };

s.before(async () => {
  await nats.start();
  store = await openTestStore();
  await store.loader.load({ events: [ev(1, '$pageview', '2026-11-19T10:00:00Z'), ev(2, '$pageview', '2026-11-20T10:00:00Z')], persons: [], distinctIds: [] });
});
const handles = clusterHandles();
s.after.each(async () => {
  for (const o of open.splice(0)) await o.close();
  await handles.closeAll();
});
// Each replica and engine is a process's: a cluster handle of its own.
async function node(): Promise<JetStream> {
  const cluster = await handles.open(nats.server().url, { role: 'command' });
  if (!overNats(cluster)) throw new Error('not over NATS');
  return cluster.jetstream;
}
s.after(async () => {
  await store.close();
  await nats.close();
});

async function replica(name: string, position: () => number): Promise<NatsQueryServer> {
  const server = await serveQueriesOverNats(store.db, await node(), { replica: name, position });
  open.push(server);
  return server;
}

async function engine(opts: { timeoutMs?: number; catchUpMs?: number; silenceMs?: number } = {}): Promise<NatsInsightsEngine> {
  const e = await connectNatsEngine(await node(), { timeoutMs: opts.timeoutMs ?? 10_000, catchUpMs: opts.catchUpMs, silenceMs: opts.silenceMs });
  open.push(e);
  return e;
}

const answers = (e: NatsInsightsEngine, name: string) => e.replicas().find((r) => r.replica === name)?.answers ?? 0;

s('a query needing position 10 is answered by the replica that loaded it; the one at 3 answers behind and is passed over', async () => {
  await replica('behind', () => 3);
  await replica('current', () => 12);
  const e = await engine({ catchUpMs: 50 });
  for (let i = 0; i < 6; i++) {
    const { response, position } = await e.run(pageviews, context, undefined, 10);
    assert.is((response.results as { count: number }[])[0].count, 2);
    assert.is(position, 12);
  }
  assert.is(answers(e, 'current'), 6);
  assert.is(answers(e, 'behind'), 0);
});

s('a replica that catches up within the wait answers', async () => {
  let at = 0;
  await replica('catching-up', () => at);
  const e = await engine({ catchUpMs: 5000 });
  setTimeout(() => { at = 7; }, 300);
  const { position } = await e.run(pageviews, context, undefined, 7);
  assert.is(position, 7);
});

s('a replica that takes a query and goes silent: it is asked of another after the silence window', async () => {
  // A queue member that accepts and then says nothing, as a process frozen or killed would.
  const nc: NatsConnection = await connect({ servers: nats.server().url });
  open.push({ close: () => nc.close() });
  let taken = 0;
  nc.subscribe(QUERY_SUBJECT, { queue: QUERY_QUEUE, callback: (_err, msg) => { taken++; msg.respond(encodeReplicaMessage({ type: 'accepted', replica: 'mute' })); } });
  await nc.flush();
  await replica('live', () => 0);
  const e = await engine({ silenceMs: 300 });
  // NATS picks a queue member at random: queries go on until the mute one has taken some
  // (six fixed queries missed it about once in 64 runs), each answered by the live one.
  let runs = 0;
  while (runs < 6 || (taken < 2 && runs < 60)) {
    await e.run(pageviews, context);
    runs++;
  }
  assert.ok(taken > 0, `the mute member took none of ${runs} queries`);
  assert.is(answers(e, 'live'), runs);
});

s('a bad query is a QueryError naming the field, not retried', async () => {
  await replica('r', () => 0);
  const e = await engine();
  try {
    await e.run({ ...pageviews, interval: 'fortnight' }, context);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, QueryError);
    assert.is((err as QueryError).attr, 'interval');
  }
});

s('an abort cancels the query here and in the replica; no replica at all ends in EngineUnavailableError at the time limit', async () => {
  const stuck = await replica('stuck', () => 0);
  const e = await engine({ catchUpMs: 10_000 });
  const controller = new AbortController();
  const outcome = e.run(pageviews, context, controller.signal, 100).then(() => null, (err: unknown) => err);
  await eventually(async () => stuck.inFlight() === 1);
  controller.abort();
  assert.instance(await outcome, QueryCancelledError);
  await eventually(async () => stuck.inFlight() === 0);
  for (const o of open.splice(0, 1)) await o.close();
  const none = await engine({ timeoutMs: 800 });
  const started = Date.now();
  await none.run(pageviews, context).then(() => assert.unreachable(), (err) => assert.instance(err, EngineUnavailableError));
  assert.ok(Date.now() - started >= 700);
});

s.run();

// With NATS_URL, HEDGEROW_INSIGHTS=embedded keeps 0018's one aggregation worker in serve,
// reading the JetStream stream.
const embedded = suite('insights over NATS: HEDGEROW_INSIGHTS=embedded');
const natsForEmbedded = natsServerForSuite();

embedded.before(async () => { await natsForEmbedded.start(); });
embedded.after(async () => { await natsForEmbedded.close(); });

embedded('serve answers from its own aggregation worker over the JetStream stream', async () => {
  const t = await startTestServer({ env: { NATS_URL: natsForEmbedded.server().url, HEDGEROW_INSIGHTS: 'embedded' }, consumers: NO_DESTINATIONS });
  try {
    const now = new Date().toISOString();
    const batch = [1, 2, 3].map((n) => ({ uuid: randomUUID(), event: '$pageview', distinct_id: `user-${n}`, timestamp: now, properties: {} }));
    assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
    const api = apiClient(t);
    await eventually(async () => {
      const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: pageviews, refresh: 'force_blocking' });
      return r.status === 200 && r.body.results[0].count === 3;
    }, 30_000);
    assert.ok(existsSync(join(t.dataDir, 'insights.duckdb')));
  } finally {
    await t.close();
  }
});

embedded.run();
