// The made-up shop the app's screenshots and its interactivity bench run against: a server
// on a temporary data dir (every consumer, hog functions allowed to reach 127.0.0.1), a
// signed-in user's password, a week of pageviews and sign-ups by a dozen people, three flags
// and their evaluations, saved insights of each kind on a laid-out dashboard, and a webhook
// that has delivered to a local receiver (so it has logs and metrics).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestServer, postJson, bearer, eventually, request, type TestServer } from '../test/helpers/server.js';
import { addUser } from '../test/helpers/users.js';
import { OrgLevel } from '../src/access/index.js';
import { setPassword } from '../src/access/sessions/commands.js';
import { hashPassword } from '../src/access/sessions/password.js';

export const EMAIL = 'ada@example.com';
export const PASSWORD = 'screenshots only';

export interface Shop {
  t: TestServer;
  dashboardId: number;
  funnelId: number;
  flagId: number;
  hookId: string;
  close(): Promise<void>;
}

export async function startShop(): Promise<Shop> {
  // The webhook's receiver: answers every delivery 200.
  const sink = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}')); });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const t = await startTestServer({ env: { HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1' } });
  const { user } = await addUser(t, { level: OrgLevel.admin, email: EMAIL });
  await t.server.writes.submit(setPassword, { user_id: user.id, hash: await hashPassword(PASSWORD) });

  // A week of a small shop: pageviews and sign-ups by a dozen people.
  const now = Date.now();
  const batch: object[] = [];
  for (let i = 0; i < 240; i++) {
    const who = `user-${i % 12}`;
    const ts = new Date(now - ((i * 2_520_000) % (7 * 86_400_000))).toISOString();
    batch.push({ event: '$pageview', distinct_id: who, timestamp: ts, properties: { $current_url: `https://shop.example/${['', 'pricing', 'docs', 'blog'][i % 4]}`, $browser: ['Chrome', 'Firefox', 'Safari'][i % 3] } });
    if (i % 9 === 0) batch.push({ event: 'signed_up', distinct_id: who, timestamp: ts, properties: { plan: i % 2 ? 'pro' : 'free', $set: { email: `${who}@example.com`, plan: i % 2 ? 'pro' : 'free' } } });
    if (i % 5 === 0) batch.push({ event: '$feature_flag_called', distinct_id: who, timestamp: ts, properties: { $feature_flag: 'new-checkout', $feature_flag_response: i % 2 === 0 } });
  }
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch });
  for (const [key, rollout, name] of [['new-checkout', 50, 'The one-page checkout'], ['dark-mode', 100, 'Dark theme for everyone'], ['beta-reports', 10, 'Reports beta']] as const) {
    await postJson(`${t.url}/api/projects/${t.projectId}/feature_flags/`, { key, name, active: key !== 'beta-reports', filters: { groups: [{ properties: [], rollout_percentage: rollout }] } }, bearer(t.personalKey));
  }
  // Saved insights of each kind, a dashboard of them, and a webhook.
  const api = (path: string, body: unknown, method = 'POST') =>
    request(`${t.url}/api/projects/${t.projectId}/${path}`, { method, headers: { Authorization: `Bearer ${t.personalKey}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const viz = (source: object) => ({ kind: 'InsightVizNode', source });
  const dashboard = (await api('dashboards/', { name: 'Shop overview', description: 'The week in the shop' })).body;
  const insights = [
    { name: 'Pageviews per day', query: viz({ kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview', math: 'total' }], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } }), layout: { x: 0, y: 0, w: 8, h: 5 } },
    { name: 'Visit to sign-up', query: viz({ kind: 'FunnelsQuery', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelVizType: 'steps' } }), layout: { x: 8, y: 0, w: 4, h: 5 } },
    { name: 'Returning visitors', query: viz({ kind: 'RetentionQuery', dateRange: { date_from: '-7d' }, retentionFilter: { period: 'Day', totalIntervals: 7, retentionType: 'retention_first_time', targetEntity: { id: '$pageview', name: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', name: '$pageview', type: 'events' } } }), layout: { x: 0, y: 5, w: 12, h: 6 } },
  ];
  for (const i of insights) await api('insights/', { name: i.name, query: i.query, dashboards: [dashboard.id] });
  const tiles = (await request(`${t.url}/api/projects/${t.projectId}/dashboards/${dashboard.id}`, { headers: { Authorization: `Bearer ${t.personalKey}` } })).body.tiles as { id: number; insight: { name: string } }[];
  await api(`dashboards/${dashboard.id}/`, {
    tiles: [...tiles.map((tile) => ({ id: tile.id, layouts: { sm: insights.find((i) => i.name === tile.insight.name)!.layout } })), { text: { body: 'Sign-ups come mostly from the pricing page.' }, layouts: { sm: { x: 0, y: 11, w: 12, h: 1 } } }],
  }, 'PATCH');
  const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/orders`;
  const hook = (await api('hog_functions/', { template_id: 'template-webhook', name: 'Orders to the warehouse', enabled: true, inputs: { url: { value: sinkUrl }, debug: { value: true } }, filters: { events: [{ id: 'signed_up', type: 'events' }] } })).body;
  await api('hog_functions/', { template_id: 'template-webhook', name: 'Audit log mirror', enabled: false, inputs: { url: { value: sinkUrl } } });
  await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [1, 2, 3].map((n) => ({ event: 'signed_up', distinct_id: `late-${n}`, properties: { plan: 'pro' } })) });
  await t.applied();
  await eventually(async () => (await request(`${t.url}/api/projects/${t.projectId}/hog_functions/${hook.id}/logs`, { headers: { Authorization: `Bearer ${t.personalKey}` } })).body.results.length >= 3);

  const flags = (await request(`${t.url}/api/projects/${t.projectId}/feature_flags`, { headers: { Authorization: `Bearer ${t.personalKey}` } })).body.results as { id: number; key: string }[];
  const saved = (await request(`${t.url}/api/projects/${t.projectId}/insights`, { headers: { Authorization: `Bearer ${t.personalKey}` } })).body.results as { id: number; name: string }[];
  return {
    t, dashboardId: dashboard.id, hookId: hook.id,
    flagId: flags.find((f) => f.key === 'new-checkout')!.id,
    funnelId: saved.find((i) => i.name === 'Visit to sign-up')!.id,
    async close() {
      await t.close();
      await new Promise((resolve) => sink.close(resolve));
    },
  };
}
