// Delivering subscriptions apart from the server: the scheduler's tick driven by a clock the
// test sets, over a real store and write path, leases on an in-memory bucket, pictures drawn
// by the chart renderer, sent for real to a local webhook sink and a local SMTP receiver.
// Once per occurrence (two nodes ticking together send one), retried after failures, given
// up after the last attempt, and "run now".
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { createLeases, memoryKv } from '../../src/cluster/index.js';
import { createLocalWrites } from '../../src/state/index.js';
import { createLogger } from '../../src/logger.js';
import { renderExport } from '../../src/exports/render.js';
import { insertSubscriptionCommand, requestRunCommand } from '../../src/subscriptions/commands.js';
import { buildMessage, type RenderedItem } from '../../src/subscriptions/message.js';
import { subscriptionById, type SubscriptionRecord } from '../../src/subscriptions/records.js';
import { summary } from '../../src/subscriptions/rrule.js';
import { nextDelivery } from '../../src/subscriptions/schedule.js';
import { createScheduler } from '../../src/subscriptions/scheduler.js';
import { createSender } from '../../src/subscriptions/send.js';
import { parseSmtpUrl } from '../../src/subscriptions/targets/smtp.js';
import { parseAddressPolicy, PUBLIC_ONLY } from '../../src/net/address-policy.js';
import { COMMANDS } from '../helpers/commands.js';
import { startSink, type Sink } from '../helpers/http-sink.js';
import { TEST_TLS_CERT, TEST_TLS_KEY } from '../fixtures/test-tls.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { decodePng } from '../helpers/png.js';
import { storePerTest } from '../helpers/temp-store.js';
import { everyKind } from '../exports/fixtures.js';

const s = suite('subscriptions: delivery');
let store: Store;
storePerTest(s, 'hedgerow-subscriptions-', (opened) => { store = opened; });
let sink: Sink;
let smtp: SmtpSink;
s.before(async () => { sink = await startSink(); smtp = await startSmtpSink({ tls: { cert: TEST_TLS_CERT, key: TEST_TLS_KEY } }); });
s.after(async () => { await sink.close(); await smtp.close(); });
s.before.each(() => { sink.reset(); smtp.messages = []; smtp.refuse.clear(); });

const ZONE = 'Europe/Paris';
// The sinks listen on loopback, which a user's URL may reach only when the operator allows it.
const LOCAL = parseAddressPolicy('127.0.0.1');
const PNG = renderExport('image/png', everyKind['trends-line'], null).bytes;
// 2026-01-05 is a Monday: every Monday at 9:00 in Paris (08:00Z in winter).
const RULE = { frequency: 'weekly' as const, interval: 1, count: null, byweekday: ['monday' as const], bysetpos: null, start_date: '2026-01-05T08:00:00.000Z', until_date: null };

function node(writes: ReturnType<typeof createLocalWrites>, clock: { now: number }, kv = memoryKv('TEST_CLAIMS', 10_000), opts: { broken?: boolean; gone?: boolean } = {}) {
  const leases = createLeases(kv, { node: 'n', ttlMs: 10_000, shared: true });
  const rendered: number[] = [];
  const scheduler = createScheduler({
    store, writes, leases, log: createLogger('silent'), now: () => new Date(clock.now),
    settings: { tickMs: 1_000_000, retryMs: 60_000, attempts: 3 },
    timezone: () => ZONE,
    live: () => !opts.gone,
    async render(sub): Promise<RenderedItem[]> {
      rendered.push(sub.id);
      if (opts.broken) throw new Error('the query failed');
      return [{ insight_id: 11, name: 'Pageviews by browser', png: PNG, url: 'http://hedgerow.test/exporter/abc.png', error: null }, { insight_id: 12, name: 'Funnel', png: null, url: null, error: 'timed out' }];
    },
    message: (sub, items, at) => buildMessage({
      siteUrl: 'http://hedgerow.test', subscription: { id: sub.id, title: sub.title, summary: summary(sub) },
      resource: { type: 'dashboard', id: 3, name: 'Weekly review', shortId: null }, items, at,
    }),
    send: createSender({ smtp: parseSmtpUrl(`smtp://bot:secret@127.0.0.1:${smtp.port}`, 'auto', { ca: null, anyCertificate: true }), from: 'reports@hedgerow.test', timeoutMs: 5000, policy: LOCAL }),
  });
  return { scheduler, rendered, leases };
}

async function subscribe(writes: ReturnType<typeof createLocalWrites>, target: Pick<SubscriptionRecord, 'target_type' | 'target_value'>, createdAt: number): Promise<SubscriptionRecord> {
  return writes.submit(insertSubscriptionCommand, {
    project_id: 1, dashboard: 3, insight: null, dashboard_export_insights: [], title: 'Monday digest', ...target, ...RULE,
    next_delivery_date: nextDelivery(RULE, createdAt, ZONE), created_at: new Date(createdAt).toISOString(), created_by: 1, deleted: false, enabled: true,
    run_requested_at: null, delivery: { attempts: 0, retry_at: null, last_error: null, last_delivered_at: null },
  });
}

s('a webhook on schedule: nothing before Monday 9:00 Paris, one POST at it with the pictures and links, then the next Monday', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  const sub = await subscribe(writes, { target_type: 'webhook', target_value: `${sink.url}/hook` }, clock.now);
  assert.is(sub.next_delivery_date, '2026-01-12T08:00:00.000Z');
  const { scheduler } = node(writes, clock);
  clock.now = Date.parse('2026-01-12T07:59:59Z');
  assert.is(await scheduler.tick(), 0);
  assert.is(sink.requests.length, 0);
  clock.now = Date.parse('2026-01-12T08:00:30Z');
  assert.is(await scheduler.tick(), 1);
  assert.is(sink.requests.length, 1);
  const body = sink.requests[0].json();
  assert.is(sink.requests[0].path, '/hook');
  assert.is(body.subject, 'hedgerow Dashboard report - Weekly review');
  assert.equal(body.links, { resource: 'http://hedgerow.test/dashboard/3', subscription: 'http://hedgerow.test/dashboard/3/subscriptions/1' });
  assert.is(body.subscription.summary, 'sent every week');
  assert.is(body.assets.length, 2);
  const png = decodePng(Buffer.from(body.assets[0].content_base64, 'base64'));
  assert.equal([png.width, png.height], [1200, 630]);
  assert.is(body.assets[0].content_type, 'image/png');
  assert.is(body.assets[1].error, 'timed out');
  const after = subscriptionById(store, 1, sub.id)!;
  assert.is(after.next_delivery_date, '2026-01-19T08:00:00.000Z');
  assert.is(after.delivery.last_delivered_at, '2026-01-12T08:00:30.000Z');
  assert.is(await scheduler.tick(), 0, 'delivered once');
  assert.is(sink.requests.length, 1);
  await scheduler.close();
});

s('two nodes ticking together deliver an occurrence once', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  const subs = [];
  for (let i = 0; i < 4; i++) subs.push(await subscribe(writes, { target_type: 'webhook', target_value: `${sink.url}/hook${i}` }, clock.now));
  const kv = memoryKv('TEST_CLAIMS', 10_000);
  const a = node(writes, clock, kv);
  const b = node(writes, clock, kv);
  clock.now = Date.parse('2026-01-12T08:01:00Z');
  const [na, nb] = await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
  assert.is(na + nb, 4);
  assert.equal(sink.requests.map((r) => r.path).sort(), ['/hook0', '/hook1', '/hook2', '/hook3']);
  assert.is([...a.rendered, ...b.rendered].length, 4, 'each rendered once');
  assert.equal(await Promise.all([a.scheduler.tick(), b.scheduler.tick()]), [0, 0]);
  await a.scheduler.close();
  await b.scheduler.close();
});

s('a failing target: retried after the backoff, given up after the last attempt with the error kept, the next Monday still due', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  const sub = await subscribe(writes, { target_type: 'slack', target_value: `${sink.url}/services/T1/B1/x` }, clock.now);
  const { scheduler } = node(writes, clock);
  sink.respond = (_req, res) => { res.statusCode = 500; res.end('no'); };
  clock.now = Date.parse('2026-01-12T08:00:00Z');
  assert.is(await scheduler.tick(), 1);
  let state = subscriptionById(store, 1, sub.id)!;
  assert.is(state.delivery.attempts, 1);
  assert.is(state.delivery.retry_at, '2026-01-12T08:01:00.000Z');
  assert.match(state.delivery.last_error!, /answered 500/);
  assert.is(state.next_delivery_date, '2026-01-12T08:00:00.000Z', 'still this occurrence');
  clock.now = Date.parse('2026-01-12T08:00:59Z');
  assert.is(await scheduler.tick(), 0, 'waits out the backoff');
  clock.now = Date.parse('2026-01-12T08:01:00Z');
  assert.is(await scheduler.tick(), 1);
  state = subscriptionById(store, 1, sub.id)!;
  assert.is(state.delivery.retry_at, '2026-01-12T08:03:00.000Z', 'twice the wait');
  clock.now = Date.parse('2026-01-12T08:03:00Z');
  assert.is(await scheduler.tick(), 1);
  state = subscriptionById(store, 1, sub.id)!;
  assert.is(state.delivery.attempts, 0);
  assert.is(state.delivery.retry_at, null);
  assert.match(state.delivery.last_error!, /answered 500/);
  assert.is(state.next_delivery_date, '2026-01-19T08:00:00.000Z');
  assert.is(sink.requests.length, 3);
  // Slack's incoming-webhook message: PostHog's words, a section per insight, the buttons.
  const slack = sink.requests[0].json();
  assert.is(slack.text, 'Your subscription to the dashboard *Weekly review* is ready! 🎉');
  const buttons = slack.blocks.find((b: any) => b.type === 'actions').elements.map((e: any) => [e.text.text, e.url]);
  assert.equal(buttons, [['View in hedgerow', 'http://hedgerow.test/dashboard/3'], ['Manage Subscription', 'http://hedgerow.test/dashboard/3/subscriptions/1']]);
  assert.ok(slack.blocks.some((b: any) => b.text?.text === '*Funnel*\n_timed out_'));
  assert.equal(slack.blocks.find((b: any) => b.type === 'image'), { type: 'image', image_url: 'http://hedgerow.test/exporter/abc.png', alt_text: 'Pageviews by browser', title: { type: 'plain_text', text: 'Pageviews by browser' } });
  // The next week's delivery succeeds.
  sink.respond = (_req, res) => res.end('ok');
  clock.now = Date.parse('2026-01-19T08:00:00Z');
  assert.is(await scheduler.tick(), 1);
  assert.is(subscriptionById(store, 1, sub.id)!.delivery.last_error, null);
  await scheduler.close();
});

s('email through the operator\'s SMTP server: one message to every address, the pictures inline, the links', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  await subscribe(writes, { target_type: 'email', target_value: 'ann@example.com, bob@example.com' }, clock.now);
  const { scheduler } = node(writes, clock);
  clock.now = Date.parse('2026-01-12T08:00:00Z');
  assert.is(await scheduler.tick(), 1);
  assert.is(smtp.messages.length, 1);
  const mail = smtp.messages[0];
  assert.is(mail.from, 'reports@hedgerow.test');
  assert.equal(mail.to, ['ann@example.com', 'bob@example.com']);
  assert.match(mail.data, /^To: undisclosed-recipients:;\r$/m, 'the recipients do not see each other');
  assert.is(mail.auth, '\0bot\0secret');
  assert.match(mail.data, /^Subject: hedgerow Dashboard report - Weekly review\r$/m);
  // The inline picture decodes to the rendered PNG.
  const part = /Content-ID: <image0@hedgerow>\r\nContent-Disposition: inline; filename="01-pageviews-by-browser.png"\r\n\r\n([A-Za-z0-9+/=\r\n]+?)\r\n--/.exec(mail.data);
  assert.ok(part, 'the picture is attached');
  assert.equal(Buffer.from(part![1].replace(/\r\n/g, ''), 'base64'), Buffer.from(PNG));
  const html = Buffer.from(/Content-Type: text\/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n([A-Za-z0-9+/=\r\n]+?)\r\n--/.exec(mail.data)![1].replace(/\r\n/g, ''), 'base64').toString('utf8');
  assert.ok(html.includes('src="cid:image0@hedgerow"') && html.includes('href="http://hedgerow.test/dashboard/3/subscriptions/1"'), html);
  // A server refusing the message: the delivery fails and is retried.
  smtp.refuse.add('DATA');
  clock.now = Date.parse('2026-01-19T08:00:00Z');
  assert.is(await scheduler.tick(), 1);
  assert.match(subscriptionById(store, 1, 1)!.delivery.last_error!, /SMTP DATA: 550/);
  await scheduler.close();
});

s('run now: delivered outside the schedule, once; the schedule is left as it was', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  const sub = await subscribe(writes, { target_type: 'webhook', target_value: `${sink.url}/now` }, clock.now);
  const { scheduler } = node(writes, clock);
  await writes.submit(requestRunCommand, { project_id: 1, id: sub.id, at: new Date(clock.now).toISOString() });
  assert.is(await scheduler.tick(), 1);
  assert.is(await scheduler.tick(), 0);
  assert.is(sink.requests.length, 1);
  const after = subscriptionById(store, 1, sub.id)!;
  assert.is(after.run_requested_at, null);
  assert.is(after.next_delivery_date, '2026-01-12T08:00:00.000Z');
  await scheduler.close();
});

s('a webhook URL on a private address is refused unless the operator allows it', async () => {
  const { createSender: sender } = await import('../../src/subscriptions/send.js');
  const m = buildMessage({ siteUrl: 'http://h', subscription: { id: 1, title: null, summary: 'x' }, resource: { type: 'insight', id: 1, name: 'V', shortId: 'abc' }, items: [], at: new Date() });
  const strict = sender({ smtp: null, from: 'a@b.c', timeoutMs: 5000, policy: PUBLIC_ONLY });
  await strict({ target_type: 'webhook', target_value: `${sink.url}/private` }, m).then(() => assert.unreachable('delivered'), (err: Error) => assert.match(err.message, /127\.0\.0\.1 is not a public address/));
  const port = new URL(sink.url).port;
  await strict({ target_type: 'slack', target_value: `http://localhost:${port}/private` }, m).then(() => assert.unreachable('delivered'), (err: Error) => assert.match(err.message, /Refused to connect to localhost/));
  assert.is(sink.requests.length, 0);
  await strict({ target_type: 'email', target_value: 'a@b.c' }, m).then(() => assert.unreachable('sent'), (err: Error) => assert.match(err.message, /No SMTP server is set/));
});

s('a subscription to a deleted insight or dashboard is not due: nothing rendered, sent or recorded', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  const sub = await subscribe(writes, { target_type: 'webhook', target_value: `${sink.url}/gone` }, clock.now);
  const { scheduler, rendered } = node(writes, clock, undefined, { gone: true });
  clock.now = Date.parse('2026-01-12T08:00:00Z');
  assert.is(await scheduler.tick(), 0);
  assert.equal(rendered, []);
  assert.is(sink.requests.length, 0);
  assert.equal(subscriptionById(store, 1, sub.id)!.delivery, { attempts: 0, retry_at: null, last_error: null, last_delivered_at: null });
  await scheduler.close();
});

s('nothing is sent for a disabled subscription, nor one whose render fails (it is retried)', async () => {
  const writes = createLocalWrites(store, COMMANDS);
  const clock = { now: Date.parse('2026-01-07T10:00:00Z') };
  const sub = await subscribe(writes, { target_type: 'webhook', target_value: `${sink.url}/x` }, clock.now);
  const { scheduler, rendered } = node(writes, clock, undefined, { broken: true });
  clock.now = Date.parse('2026-01-12T08:00:00Z');
  assert.is(await scheduler.tick(), 1);
  assert.equal(rendered, [sub.id]);
  assert.is(sink.requests.length, 0);
  assert.is(subscriptionById(store, 1, sub.id)!.delivery.last_error, 'the query failed');
  const { saveSubscriptionCommand } = await import('../../src/subscriptions/commands.js');
  const { delivery: _d, run_requested_at: _r, ...fields } = subscriptionById(store, 1, sub.id)!;
  await writes.submit(saveSubscriptionCommand, { ...fields, enabled: false });
  clock.now = Date.parse('2026-01-12T09:00:00Z');
  assert.is(await scheduler.tick(), 0);
  await scheduler.close();
});

s.run();
