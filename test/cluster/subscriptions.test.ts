// Subscriptions delivered once across a NATS cluster, against a real nats-server: two
// "nodes", each its own store applying the control stream, its own cluster handle (leases on
// the claims bucket) and its own scheduler, tick together at the due time; every occurrence
// reaches the webhook sink once, and both nodes then see it delivered.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { createLogger } from '../../src/logger.js';
import type { NatsWrites } from '../../src/state/nats.js';
import { insertSubscriptionCommand } from '../../src/subscriptions/commands.js';
import { buildMessage } from '../../src/subscriptions/message.js';
import { subscriptionById } from '../../src/subscriptions/records.js';
import { nextDelivery } from '../../src/subscriptions/schedule.js';
import { createScheduler } from '../../src/subscriptions/scheduler.js';
import { createSender } from '../../src/subscriptions/send.js';
import { parseAddressPolicy } from '../../src/net/address-policy.js';
import { clusterHandles, natsWrites } from '../helpers/cluster-handle.js';
import { COMMANDS } from '../helpers/commands.js';
import { startSink, type Sink } from '../helpers/http-sink.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';

const s = suite('subscriptions delivered once across a NATS cluster');
const nats = natsServerForSuite();
const handles = clusterHandles();
let sink: Sink;
const dirs: string[] = [];
const stores: Store[] = [];
const writes: NatsWrites[] = [];

s.before(async () => { await nats.start(); sink = await startSink(); });
s.after(async () => {
  for (const w of writes) await w.close();
  await handles.closeAll();
  for (const st of stores) await st.close().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  await sink.close();
  await nats.close();
});

const RULE = { frequency: 'daily' as const, interval: 1, count: null, byweekday: null, bysetpos: null, start_date: '2026-01-05T08:00:00.000Z', until_date: null };

async function node(name: string, stream: string, clock: { now: number }) {
  const dir = tempDir(`hedgerow-subs-${name}-`);
  dirs.push(dir);
  const store = openStore(dir, tables);
  stores.push(store);
  const w = await natsWrites(nats.server().url, { store, specs: COMMANDS, stream });
  writes.push(w);
  const cluster = await handles.open(nats.server().url, { node: name, role: 'command' });
  const leases = await cluster.leases('claims');
  const sent: number[] = [];
  const send = createSender({ smtp: null, from: 'x@y.z', timeoutMs: 5000, policy: parseAddressPolicy('127.0.0.1') });
  const scheduler = createScheduler({
    store, writes: w, leases, log: createLogger('silent'), now: () => new Date(clock.now),
    settings: { tickMs: 1_000_000, retryMs: 60_000, attempts: 3 }, timezone: () => 'UTC', live: () => true,
    render: async () => [{ insight_id: 1, name: 'Views', png: new Uint8Array([1, 2, 3]), url: null, error: null }],
    message: (sub, items, at) => buildMessage({ siteUrl: 'http://h', subscription: { id: sub.id, title: null, summary: '' }, resource: { type: 'insight', id: 1, name: 'Views', shortId: 'abc' }, items, at }),
    send: async (sub, m) => { sent.push(sub.id); await send(sub, m); },
  });
  return { store, writes: w, scheduler, sent };
}

s('two nodes ticking at the due time deliver each occurrence once, and both see it delivered', async () => {
  const clock = { now: Date.parse('2026-01-10T12:00:00Z') };
  const stream = `HEDGEROW_CONTROL_SUBS_${process.pid}`;
  const a = await node('a', stream, clock);
  const b = await node('b', stream, clock);
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) {
    const sub = await a.writes.submit(insertSubscriptionCommand, {
      project_id: 1, dashboard: null, insight: 1, dashboard_export_insights: [], title: null, target_type: 'webhook', target_value: `${sink.url}/s${i}`, ...RULE,
      next_delivery_date: nextDelivery(RULE, clock.now, 'UTC'), created_at: new Date(clock.now).toISOString(), created_by: 1, deleted: false, enabled: true,
      run_requested_at: null, delivery: { attempts: 0, retry_at: null, last_error: null, last_delivered_at: null },
    });
    ids.push(sub.id);
  }
  await eventually(async () => ids.every((id) => subscriptionById(b.store, 1, id)) || null);
  assert.is(subscriptionById(b.store, 1, ids[0])!.next_delivery_date, '2026-01-11T08:00:00.000Z');
  clock.now = Date.parse('2026-01-11T08:00:05Z');
  const [na, nb] = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
  assert.is(na + nb, 6, `a ${na}, b ${nb}`);
  assert.equal(sink.requests.map((r) => r.path).sort(), ids.map((_, i) => `/s${i}`));
  assert.equal([...a.sent, ...b.sent].sort((x, y) => x - y), ids);
  // Both stores applied every outcome: the next day is due next, on either node.
  await eventually(async () => [a.store, b.store].every((st) => ids.every((id) => subscriptionById(st, 1, id)!.next_delivery_date === '2026-01-12T08:00:00.000Z')) || null);
  assert.equal(await Promise.all([a.scheduler.tick(), b.scheduler.tick()]), [0, 0]);
  assert.is(sink.requests.length, 6);
  await a.scheduler.close();
  await b.scheduler.close();
});

s.run();
