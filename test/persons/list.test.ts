// The persons list scans in a query worker: a search through tens of thousands of
// persons answers correctly, and the HTTP thread goes on answering meanwhile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { writePerson } from '../../src/persons/person-rows.js';
import type { PersonRecord } from '../../src/store/persons.js';

const s = suite('persons list in a query worker');
// Enough persons that a search matching none of them takes a good fraction of a second.
const PERSONS = 40_000;
let t: TestServer;

const uuidOf = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

function person(i: number): PersonRecord {
  const properties: Record<string, unknown> = { email: `user${i}@example.com` };
  for (let k = 0; k < 20; k++) properties[`prop_${k}`] = `value-${k}-${i % 97}`;
  return { id: i, uuid: uuidOf(i), created_at: '2026-01-01T00:00:00.000Z', properties, is_identified: true, distinct_ids: [`user-${i}`] };
}

const list = async (query: string) => {
  const r = await fetch(`${t.url}/api/environments/${t.projectId}/persons/?${query}`, { headers: { authorization: `Bearer ${t.personalKey}` } });
  assert.is(r.status, 200);
  return r.json() as Promise<{ next: string | null; results: { uuid: string; distinct_ids: string[] }[]; count?: number }>;
};

s.before(async () => {
  t = await startTestServer();
  const { store } = t.server;
  await store.root.transaction(() => {
    for (let i = 1; i <= PERSONS; i++) {
      const p = person(i);
      writePerson(store, t.projectId, p, 0);
      store.personIds.put([t.projectId, i], p.uuid);
    }
  });
});
s.after(async () => { await t.close(); });

s('a search reaches the oldest person, and one matching nobody scans them all', async () => {
  // Newest first: person 1 is the last the scan reaches.
  const oldest = await list('search=user1@example.com');
  assert.equal(oldest.results.map((p) => p.uuid), [uuidOf(1)]);
  const none = await list('search=nobody-has-this&include_total');
  assert.equal(none, { count: 0, next: null, previous: null, results: [] });
  const all = await list('include_total&limit=2&offset=1');
  assert.is(all.count, PERSONS);
  assert.equal(all.results.map((p) => p.uuid), [uuidOf(PERSONS - 1), uuidOf(PERSONS - 2)]);
});

s('the HTTP thread answers while a search scans', async () => {
  let searchDone = 0;
  const search = list('search=nobody-has-this').then((r) => { searchDone = performance.now(); return r; });
  // Sent once the search is on its way: a scan on the HTTP thread would hold it back.
  await new Promise((r) => setTimeout(r, 20));
  const live = await fetch(`${t.url}/_liveness`);
  const liveDone = performance.now();
  assert.is(live.status, 200);
  assert.equal((await search).results, []);
  assert.ok(liveDone < searchDone, 'liveness answered only after the search finished');
});

s.run();
