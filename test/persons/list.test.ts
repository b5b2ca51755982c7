// The persons list scans in a query worker: a search through tens of thousands of
// persons answers correctly, and the HTTP thread goes on answering meanwhile.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, NO_CONSUMERS, type TestServer } from '../helpers/server.js';
import { syntheticUuid, writeSyntheticPersons } from '../helpers/synthetic-persons.js';

const s = suite('persons list in a query worker');
// Enough persons that a search matching none of them takes a good fraction of a second.
const PERSONS = 40_000;
let t: TestServer;

const list = async (query: string) => {
  const r = await fetch(`${t.url}/api/environments/${t.projectId}/persons/?${query}`, { headers: { authorization: `Bearer ${t.personalKey}` } });
  assert.is(r.status, 200);
  return r.json() as Promise<{ next: string | null; results: { uuid: string; distinct_ids: string[] }[]; count?: number }>;
};

s.before(async () => {
  // No log consumers: the persons are written straight into the store, nothing is captured.
  t = await startTestServer({ consumers: NO_CONSUMERS });
  await writeSyntheticPersons(t.server.store, t.projectId, PERSONS);
});
s.after(async () => { await t?.close(); });

s('a search reaches the oldest person, and one matching nobody scans them all', async () => {
  // Newest first: person 1 is the last the scan reaches.
  const oldest = await list('search=user1@example.com');
  assert.equal(oldest.results.map((p) => p.uuid), [syntheticUuid(1)]);
  const none = await list('search=nobody-has-this&include_total');
  assert.equal(none, { count: 0, next: null, previous: null, results: [] });
  const all = await list('include_total&limit=2&offset=1');
  assert.is(all.count, PERSONS);
  assert.equal(all.results.map((p) => p.uuid), [syntheticUuid(PERSONS - 1), syntheticUuid(PERSONS - 2)]);
});

s('the HTTP thread answers while a search scans', async () => {
  let searchDone = 0;
  const search = list('search=nobody-has-this').then((r) => { searchDone = performance.now(); return r; });
  // Sent once the search is on its way: a scan on the HTTP thread would hold it back.
  // (The search gives no sign of being under way; a short pause lets it get there.)
  await new Promise((r) => setTimeout(r, 20));
  const live = await fetch(`${t.url}/_liveness`);
  const liveDone = performance.now();
  assert.is(live.status, 200);
  assert.equal((await search).results, []);
  assert.ok(liveDone < searchDone, 'liveness answered only after the search finished');
});

s.run();
