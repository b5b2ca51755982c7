// A dashboard's filters over a SQL insight: PostHog puts the dashboard's date range and
// properties in the HogQL query's own `filters`, which its {filters} applies. The pure step
// (applyDashboard), then a dashboard over the real server, its tile counted by hand.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { applyDashboard } from '../../src/dashboards/index.js';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';

const s = suite('dashboards: filters over a HogQL query');
let t: TestServer;
let api: ApiCall;
const env = () => `/api/environments/${t.projectId}`;
const COUNT = 'select count() from events where {filters}';
const chrome = { key: '$browser', value: 'Chrome', operator: 'exact', type: 'event' };
const safari = { key: '$browser', value: 'Safari', operator: 'exact', type: 'event' };

s('the date range and properties go into the HogQL query’s filters, after its own', () => {
  const query = { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: COUNT, filters: { properties: [chrome], dateRange: { date_from: '-30d' } } } };
  const shown = applyDashboard(query, { date_from: '2024-06-02', properties: [safari] }, {}) as { source: Record<string, unknown> };
  assert.equal(shown.source, { kind: 'HogQLQuery', query: COUNT, filters: { properties: [chrome, safari], dateRange: { date_from: '2024-06-02', date_to: null } } });
  // Nothing on the query's top level, where a HogQL query has no such fields.
  assert.is(shown.source.dateRange, undefined);
  assert.is(shown.source.properties, undefined);
  // No dashboard filters: the query as it was.
  assert.equal(applyDashboard(query, {}, {}), query);
  // A bare HogQL query without filters of its own.
  assert.equal(applyDashboard({ kind: 'HogQLQuery', query: COUNT }, { date_to: '2024-06-03' }, {}), { kind: 'HogQLQuery', query: COUNT, filters: { dateRange: { date_from: null, date_to: '2024-06-03' } } });
  // A group of properties of its own is ANDed with the dashboard's.
  const grouped = applyDashboard({ kind: 'HogQLQuery', query: COUNT, filters: { properties: { type: 'OR', values: [chrome] } } }, { properties: [safari] }, {}) as { filters: unknown };
  assert.equal(grouped.filters, { properties: { type: 'AND', values: [{ type: 'OR', values: [chrome] }, { type: 'AND', values: [safari] }] } });
});

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  const ev = (timestamp: string, $browser: string) => ({ uuid: randomUUID(), event: '$pageview', distinct_id: 'd1', timestamp, properties: { $browser } });
  const batch = [ev('2024-06-01T10:00:00Z', 'Chrome'), ev('2024-06-02T10:00:00Z', 'Chrome'), ev('2024-06-02T11:00:00Z', 'Safari'), ev('2024-06-03T10:00:00Z', 'Safari')];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await t.applied();
});
s.after(async () => { await t?.close(); });

s('a dashboard’s date range and properties reach a SQL insight’s {filters}', async () => {
  const made = await api('POST', `${env()}/dashboards/`, t.personalKey, { name: 'SQL', filters: { date_from: '2024-06-02', date_to: '2024-06-03', properties: [safari] } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  const insight = await api('POST', `${env()}/insights/`, t.personalKey, {
    name: 'Page views', dashboards: [made.body.id], query: { kind: 'DataVisualizationNode', source: { kind: 'HogQLQuery', query: COUNT } },
  });
  assert.is(insight.status, 201, JSON.stringify(insight.body));
  const shown = await api('GET', `${env()}/dashboards/${made.body.id}/?refresh=blocking`, t.personalKey);
  assert.is(shown.status, 200, JSON.stringify(shown.body));
  const tile = shown.body.tiles[0];
  // On the 2nd, by Safari: one of the four page views.
  assert.equal(tile.insight.query.source.filters, { dateRange: { date_from: '2024-06-02', date_to: '2024-06-03' }, properties: [safari] });
  assert.equal(tile.insight.result, [[1]], JSON.stringify(tile.insight));
  // The insight on its own: every page view.
  const alone = await api('POST', `${env()}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: COUNT }, refresh: 'force_blocking' });
  assert.equal(alone.body.results, [[4]]);
});

s.run();
