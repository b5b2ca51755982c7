// Paging through many events whose timestamps interleave across requests and consumer
// transactions (late events, one millisecond shared by many): every event comes back
// once, newest first, in the order of a full sort, whatever the page size.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';

const s = suite('events API paging');
let t: TestServer;
const base = () => `${t.url}/api/environments/${t.projectId}/events/`;
const get = (url: string) => request(url, { headers: bearer(t.personalKey) });

const START = Date.now() - 24 * 3600 * 1000;
const sent: { uuid: string; ts: number }[] = [];

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  let seed = 11;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (let request = 0; request < 6; request++) {
    const batch = Array.from({ length: 250 }, () => {
      const r = random();
      // Each request's 40 minutes overlap the next one's, and some share one millisecond:
      // the time index's chunks overlap and must be merged.
      const ts = r < 0.1 ? START + 3600 * 1000 : START + request * 20 * 60_000 + Math.floor(random() * 40 * 60_000);
      const uuid = randomUUID();
      sent.push({ uuid, ts });
      return { uuid, event: 'e', distinct_id: `d-${request}`, timestamp: new Date(ts).toISOString(), properties: {} };
    });
    assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  }
  // The consumer applies the log in order: once the last event is stored, all are.
  await eventually(async () => (await get(`${base()}${sent[sent.length - 1].uuid}`)).status === 200, 10_000);
});
s.after(async () => { await t.close(); });

for (const limit of [7, 100, 1000]) {
  s(`pages of ${limit} return every event once, in the order of a full sort`, async () => {
    const want = [...sent].sort((a, b) => (b.ts - a.ts) || (a.uuid < b.uuid ? 1 : -1)).map((e) => e.uuid);
    const seen: string[] = [];
    let url: string | null = `${base()}?limit=${limit}`;
    while (url) {
      const r = await get(url);
      assert.is(r.status, 200);
      seen.push(...r.body.results.map((e: { uuid: string }) => e.uuid));
      url = r.body.next;
    }
    assert.is(seen.length, sent.length);
    assert.equal(seen, want);
  });
}

s.run();
