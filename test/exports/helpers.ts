// Helpers of the exports API tests: events every query kind has something to show, saved
// insights, exports created and their files read back as bytes.
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import type { ApiCall } from '../helpers/api.js';
import { bearer, eventually, postJson, type TestServer } from '../helpers/server.js';

export const day = (offset: number, hour = 12): string => {
  const d = new Date();
  d.setUTCHours(hour, 0, 0, 0);
  return new Date(d.getTime() + offset * 86_400_000).toISOString();
};

export const pageviewsQuery = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } };

// Five users over the six days before today (none today: every event is in the past
// whatever the hour): page views from three browsers, sign-ups, upgrades.
export async function loadEvents(t: TestServer, api: ApiCall): Promise<void> {
  const browsers = ['Chrome', 'Safari', 'Firefox'];
  const batch = [];
  for (let n = 1; n <= 5; n++) {
    for (let d = -6; d <= -1; d++) {
      if ((n + d) % 3 === 0) continue;
      batch.push({ uuid: randomUUID(), event: '$pageview', distinct_id: `user-${n}`, timestamp: day(d, 8 + n), properties: { $browser: browsers[n % 3] } });
      if (n % 2 === 0) batch.push({ uuid: randomUUID(), event: 'signed_up', distinct_id: `user-${n}`, timestamp: day(d, 9 + n), properties: { plan: n === 4 ? 'team' : 'free' } });
      if (n === 4) batch.push({ uuid: randomUUID(), event: 'upgraded', distinct_id: `user-${n}`, timestamp: day(d, 10 + n) });
    }
  }
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  const pageviews = batch.filter((e) => e.event === '$pageview').length;
  // Loaded by the aggregation worker (its position at the log's end), then counted once.
  await t.applied();
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: pageviewsQuery, refresh: 'force_blocking' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.results[0].count, pageviews);
}

// A saved insight around a query (a table query in a DataTableNode, as PostHog saves it).
export async function saveInsight(t: TestServer, api: ApiCall, name: string, query: Record<string, unknown>): Promise<{ id: number; query: unknown }> {
  const wrapped = query.kind === 'EventsQuery' ? { kind: 'DataTableNode', source: query } : { kind: 'InsightVizNode', source: query };
  const r = await api('POST', `/api/environments/${t.projectId}/insights/`, t.personalKey, { name, query: wrapped });
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

export interface FileResponse {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

export async function content(t: TestServer, id: number, key = t.personalKey): Promise<FileResponse> {
  const res = await fetch(`${t.url}/api/environments/${t.projectId}/exports/${id}/content/`, { headers: bearer(key) });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

// Waits until the export has its file or its failure.
export async function settled(t: TestServer, api: ApiCall, id: number, timeoutMs = 60_000): Promise<Record<string, any>> {
  return eventually(async () => {
    const r = await api('GET', `/api/environments/${t.projectId}/exports/${id}/`, t.personalKey);
    return r.status === 200 && (r.body.has_content || r.body.exception) ? r.body : null;
  }, timeoutMs);
}
