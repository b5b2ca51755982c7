// What the suites of insights' `hogql` texts ask of a server: an insight computed afresh,
// which must carry its text, and a HogQLQuery run, which must answer 200 (the text run
// as a query gives the insight's numbers: each suite compares the two).
import * as assert from 'uvu/assert';
import type { ApiCall } from './api.js';
import type { TestServer } from './server.js';

export async function insightWithText(api: ApiCall, t: TestServer, query: Record<string, unknown>) {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query, refresh: 'force_blocking' });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.type(r.body.hogql, 'string', `no hogql for ${JSON.stringify(query)}`);
  return r.body;
}

export async function runHogQL(api: ApiCall, t: TestServer, text: string): Promise<{ columns: string[]; results: unknown[][] }> {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: text }, refresh: 'force_blocking' });
  assert.is(r.status, 200, `${text}\n${JSON.stringify(r.body)}`);
  return r.body;
}
