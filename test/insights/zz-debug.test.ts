import { apiClient } from '../helpers/api.js';
import { postJson, startTestServer, NO_DESTINATIONS } from '../helpers/server.js';
import { randomUUID } from 'node:crypto';
const t = await startTestServer({ consumers: NO_DESTINATIONS });
const api = apiClient(t);
await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch: [{ uuid: randomUUID(), event: 'x', distinct_id: 'a', timestamp: '2024-06-01T09:00:00Z', properties: {} }] });
await t.applied();
for (const q of process.argv.slice(2)) {
  const r = await api('POST', `/api/environments/${t.projectId}/query/`, t.personalKey, { query: { kind: 'HogQLQuery', query: q }, refresh: 'force_blocking' });
  console.log(q, r.status, JSON.stringify(r.body).slice(0, 1500));
}
await t.close();
