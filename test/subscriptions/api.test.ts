// The subscriptions API against the real server: PostHog's fields and errors, the next
// delivery date in the project's time zone, soft delete, list filters; and deliveries end to
// end (`hedgerow subscription run ID` from the CLI, the server's scheduler rendering real
// insights in the export pool) to a local webhook sink and a local SMTP receiver.
import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { cliRun } from '../helpers/cli-server.js';
import { startSink, type Sink } from '../helpers/http-sink.js';
import { decodePng, inked } from '../helpers/png.js';
import { eventually, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { addUser } from '../helpers/users.js';
import { loadEvents, pageviewsQuery, saveInsight } from '../exports/helpers.js';
import { nextDelivery } from '../../src/subscriptions/schedule.js';

const s = suite('subscriptions: the subscriptions API');
let t: TestServer;
let api: ApiCall;
let sink: Sink;
let smtp: SmtpSink;
const env = () => `/api/environments/${t.projectId}`;
const projects = () => `/api/projects/${t.projectId}`;
let views: { id: number; short_id?: string };
let funnel: { id: number };
let board: number;

s.before(async () => {
  sink = await startSink();
  smtp = await startSmtpSink();
  t = await startTestServer({
    env: { HEDGEROW_SUBSCRIPTION_TICK_MS: '100', HEDGEROW_SMTP_URL: smtp.url, HEDGEROW_SMTP_FROM: 'reports@hedgerow.test', HEDGEROW_SITE_URL: 'http://hedgerow.test',
      HEDGEROW_SUBSCRIPTION_ALLOW: '127.0.0.1' },
    consumers: NO_DESTINATIONS,
  });
  api = apiClient(t);
  await loadEvents(t, api);
  assert.is((await api('PATCH', `/api/projects/${t.projectId}/`, t.personalKey, { timezone: 'Europe/Paris' })).status, 200);
  views = await saveInsight(t, api, 'Views', pageviewsQuery);
  funnel = await saveInsight(t, api, 'Sign-up funnel', { kind: 'FunnelsQuery', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }] });
  board = (await api('POST', `${env()}/dashboards/`, t.personalKey, { name: 'Weekly review' })).body.id;
  for (const i of [views, funnel]) assert.is((await api('PATCH', `${env()}/insights/${i.id}/`, t.personalKey, { dashboards: [board] })).status, 200);
});
s.after(async () => { await t?.close(); await sink.close(); await smtp.close(); });

const MONDAY_9 = { frequency: 'weekly', interval: 1, byweekday: ['monday'], start_date: '2026-01-05T08:00:00Z' };

async function create(body: Record<string, unknown>) {
  return api('POST', `${env()}/subscriptions/`, t.personalKey, body);
}

s('create: PostHog\'s fields; the next delivery is the next Monday at 9:00 in the project\'s time zone', async () => {
  const r = await create({ insight: views.id, target_type: 'webhook', target_value: `${sink.url}/weekly`, title: 'Views weekly', ...MONDAY_9 });
  assert.is(r.status, 201, JSON.stringify(r.body));
  for (const key of ['id', 'dashboard', 'insight', 'insight_short_id', 'resource_name', 'dashboard_export_insights', 'target_type', 'target_value', 'frequency', 'interval',
    'byweekday', 'bysetpos', 'count', 'start_date', 'until_date', 'created_at', 'created_by', 'deleted', 'enabled', 'title', 'next_delivery_date', 'integration_id',
    'invite_message', 'summary', 'summary_enabled', 'summary_prompt_guide']) assert.ok(key in r.body, key);
  assert.is(r.body.start_date, '2026-01-05T08:00:00Z');
  assert.is(r.body.resource_name, 'Views');
  assert.type(r.body.insight_short_id, 'string');
  assert.is(r.body.summary, 'sent every week');
  assert.is(r.body.created_by.email, 'admin@hedgerow.local');
  const next = new Date(r.body.next_delivery_date);
  assert.ok(next.getTime() > Date.now());
  assert.is(r.body.next_delivery_date.replace('Z', '.000Z'), nextDelivery({ ...MONDAY_9, start_date: '2026-01-05T08:00:00.000Z', until_date: null, count: null, bysetpos: null } as any, Date.now(), 'Europe/Paris'));
  assert.equal(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', weekday: 'long', hour: '2-digit', minute: '2-digit' }).format(next), 'Monday 09:00');
  // A changed schedule moves the next delivery; other changes leave it.
  const daily = await api('PATCH', `${env()}/subscriptions/${r.body.id}/`, t.personalKey, { frequency: 'daily', byweekday: null });
  assert.is(daily.status, 200);
  assert.ok(Date.parse(daily.body.next_delivery_date) - Date.now() <= 86_400_000);
  const renamed = await api('PATCH', `${env()}/subscriptions/${r.body.id}/`, t.personalKey, { title: 'Views daily' });
  assert.is(renamed.body.next_delivery_date, daily.body.next_delivery_date);
  assert.is(renamed.body.title, 'Views daily');
});

s('refused: no insight or dashboard, bad choices, a target that is not a URL or an address, insights not on the dashboard', async () => {
  const base = { target_type: 'webhook', target_value: `${sink.url}/x`, ...MONDAY_9 };
  const none = await create(base);
  assert.is(none.status, 400);
  assert.is(none.body.detail, 'Either dashboard or insight is required for an export.');
  assert.is((await create({ ...base, insight: views.id, target_type: 'carrier-pigeon' })).body.attr, 'target_type');
  assert.is((await create({ ...base, insight: views.id, frequency: 'hourly' })).body.attr, 'frequency');
  assert.is((await create({ ...base, insight: views.id, target_value: 'not a url' })).body.attr, 'target_value');
  const email = await create({ ...base, insight: views.id, target_type: 'email', target_value: 'ann@example.com, nobody' });
  assert.is(email.status, 400);
  assert.is(email.body.detail, '"nobody" is not an email address.');
  assert.is((await create({ ...base, insight: 999_999 })).body.attr, 'insight');
  const missing = await create({ insight: views.id, target_type: 'webhook', target_value: `${sink.url}/x` });
  assert.is(missing.body.attr, 'frequency');
  const other = await saveInsight(t, api, 'Not on the board', pageviewsQuery);
  const bad = await create({ ...base, dashboard: board, dashboard_export_insights: [views.id, other.id] });
  assert.is(bad.status, 400);
  assert.is(bad.body.detail, '1 invalid insight(s) selected');
  assert.is((await create({ ...base, insight: views.id, dashboard_export_insights: [views.id] })).body.detail, 'Cannot set insights selection without a dashboard');
});

s('Slack: an incoming webhook URL is taken; a Slack app target (integration_id, a channel) is a 400 saying what is supported', async () => {
  const base = { insight: views.id, target_type: 'slack', ...MONDAY_9 };
  const app = await create({ ...base, integration_id: 5, target_value: 'C0123ABC|#general' });
  assert.is(app.status, 400);
  assert.is(app.body.attr, 'integration_id');
  assert.match(app.body.detail, /^Slack app integrations are not supported: hedgerow posts to a Slack incoming webhook/);
  const channel = await create({ ...base, target_value: '#general' });
  assert.is(channel.status, 400);
  assert.is(channel.body.attr, 'target_value');
  assert.match(channel.body.detail, /incoming webhook.*target_value/);
  const hook = await create({ ...base, target_value: `${sink.url}/slack-hook`, integration_id: null });
  assert.is(hook.status, 201, JSON.stringify(hook.body));
  assert.is(hook.body.integration_id, null);
  const patched = await api('PATCH', `${env()}/subscriptions/${hook.body.id}/`, t.personalKey, { integration_id: 5 });
  assert.is(patched.status, 400);
  assert.is(patched.body.attr, 'integration_id');
  await api('PATCH', `${env()}/subscriptions/${hook.body.id}/`, t.personalKey, { deleted: true });
  // PostHog's integrations API: none connected, and connecting one is answered as a kind not configured.
  const list = await api('GET', `${env()}/integrations/`, t.personalKey);
  assert.equal([list.status, list.body], [200, { count: 0, next: null, previous: null, results: [] }]);
  const connect = await api('POST', `${projects()}/integrations/`, t.personalKey, { kind: 'slack', config: {} });
  assert.is(connect.status, 400);
  assert.match(connect.body.detail, /^Kind not configured: .*incoming webhook/);
  assert.is((await api('GET', `${env()}/integrations/1/`, t.personalKey)).status, 404);
  assert.is((await api('DELETE', `${env()}/integrations/1/`, t.personalKey)).status, 404);
  const outsider = await addUser(t, { scopes: ['subscription:write'] });
  assert.is((await api('GET', `${env()}/integrations/`, outsider.key)).status, 403);
});

s('list: deleted hidden unless asked, filters by insight and dashboard; delete by PATCH, DELETE 405; scopes', async () => {
  const a = (await create({ dashboard: board, target_type: 'webhook', target_value: `${sink.url}/a`, ...MONDAY_9 })).body;
  const b = (await create({ dashboard: board, target_type: 'webhook', target_value: `${sink.url}/b`, ...MONDAY_9 })).body;
  assert.is((await api('DELETE', `${env()}/subscriptions/${a.id}/`, t.personalKey)).status, 405);
  assert.is((await api('PATCH', `${env()}/subscriptions/${a.id}/`, t.personalKey, { deleted: true })).status, 200);
  const listed = await api('GET', `${projects()}/subscriptions/?dashboard=${board}`, t.personalKey);
  assert.is(listed.status, 200);
  const ids = listed.body.results.map((x: any) => x.id);
  assert.ok(ids.includes(b.id) && !ids.includes(a.id));
  assert.ok(listed.body.results.every((x: any) => x.dashboard === board));
  const deleted = await api('GET', `${projects()}/subscriptions/?deleted=true`, t.personalKey);
  // Deleted ones only (an earlier test deletes one of its own too).
  const deletedIds = deleted.body.results.map((x: any) => x.id);
  assert.ok(deletedIds.includes(a.id) && !deletedIds.includes(b.id));
  assert.ok(deleted.body.results.every((x: any) => x.deleted === true));
  const reader = await addUser(t, { scopes: ['subscription:read'] });
  assert.is((await api('GET', `${env()}/subscriptions/${b.id}/`, reader.key)).status, 200);
  assert.is((await api('PATCH', `${env()}/subscriptions/${b.id}/`, reader.key, { title: 'x' })).status, 403);
  const outsider = await addUser(t, { scopes: ['insight:read'] });
  assert.is((await api('GET', `${env()}/subscriptions/`, outsider.key)).status, 403);
  await api('PATCH', `${env()}/subscriptions/${b.id}/`, t.personalKey, { deleted: true });
});

s('`hedgerow subscription run ID`: the dashboard\'s insights rendered and sent to the webhook, once; email through SMTP', async () => {
  const hook = await create({ dashboard: board, target_type: 'webhook', target_value: `${sink.url}/digest`, ...MONDAY_9 });
  const ran = await cliRun(t.dataDir, 'subscription', 'run', String(hook.body.id), '--json');
  assert.is(ran.code, 0, ran.stderr);
  const request = await eventually(async () => sink.requests.find((r) => r.path === '/digest') ?? null, 60_000);
  const body = request.json();
  assert.is(body.subject, 'hedgerow Dashboard report - Weekly review');
  assert.equal(body.assets.map((a: any) => a.name), ['Views', 'Sign-up funnel']);
  for (const asset of body.assets) {
    const png = decodePng(Buffer.from(asset.content_base64, 'base64'));
    assert.equal([png.width, png.height], [1200, 630]);
    assert.ok(inked(png) > 0.01, `${asset.name} is drawn`);
  }
  assert.is(body.links.resource, `http://hedgerow.test/dashboard/${board}`);
  // Each picture has a public link (Slack shows it from there): served without a key.
  const link = /^http:\/\/hedgerow\.test(\/exporter\/[0-9a-f]{64}\.png)$/.exec(body.assets[0].url);
  assert.ok(link, body.assets[0].url);
  const open = await fetch(`${t.url}${link![1]}`);
  assert.is(open.status, 200);
  assert.is(open.headers.get('content-type'), 'image/png');
  assert.equal(Buffer.from(await open.arrayBuffer()), Buffer.from(body.assets[0].content_base64, 'base64'));
  assert.is((await fetch(`${t.url}/exporter/${'0'.repeat(64)}.png`)).status, 404);
  assert.is((await fetch(`${t.url}/exporter/not-a-hash.png`)).status, 404);
  // An export no subscription published stays behind its creator's key.
  const own = await saveInsight(t, api, 'Sign-ups only', { ...pageviewsQuery, series: [{ kind: 'EventsNode', event: 'signed_up' }] });
  const exported = await api('POST', `${env()}/exports/`, t.personalKey, { insight: own.id, export_format: 'image/png' });
  const file = await eventually(async () => {
    const res = await fetch(`${t.url}${env()}/exports/${exported.body.id}/content/`, { headers: { Authorization: `Bearer ${t.personalKey}` } });
    return res.status === 200 ? Buffer.from(await res.arrayBuffer()) : null;
  });
  assert.is((await fetch(`${t.url}/exporter/${createHash('sha256').update(file).digest('hex')}.png`)).status, 404);
  const after = await eventually(async () => {
    const r = await api('GET', `${env()}/subscriptions/${hook.body.id}/`, t.personalKey);
    return r.body.delivery.last_delivered_at ? r.body : null;
  });
  assert.is(after.next_delivery_date, hook.body.next_delivery_date, 'the schedule is left as it was');
  // Sent once, whatever the ticks since.
  await new Promise((r) => setTimeout(r, 400));
  assert.is(sink.requests.filter((r) => r.path === '/digest').length, 1);

  const mail = await create({ insight: funnel.id, target_type: 'email', target_value: 'ann@example.com', ...MONDAY_9 });
  assert.is((await cliRun(t.dataDir, 'subscription', 'run', String(mail.body.id))).code, 0);
  const message = await eventually(async () => smtp.messages.find((m) => m.to.includes('ann@example.com')) ?? null, 60_000);
  assert.is(message.from, 'reports@hedgerow.test');
  assert.match(message.data, /^Subject: hedgerow Insight report - Sign-up funnel\r$/m);
  assert.match(message.data, /^To: ann@example\.com\r$/m);
  assert.match(message.data, /Content-Type: image\/png/);

  const unknown = await cliRun(t.dataDir, 'subscription', 'run', '999999');
  assert.ok(unknown.code !== 0);
  assert.match(unknown.stderr, /no subscription 999999/);
});

s.run();
