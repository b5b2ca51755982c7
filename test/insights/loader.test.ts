// The loader: idempotent on uuid (within a batch, across batches, for late and live events
// alike), atomic with its position, persons and merges, and safe with hostile text.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sql } from '../../src/insights/planner/sql.js';
import { ev, person, PROJECT, type TestStore, storePerTest } from './helpers.js';

const l = suite('insights: loader');
let store: TestStore;
storePerTest(l, (opened) => { store = opened; });

async function scalar(query: ReturnType<typeof sql>): Promise<unknown> {
  const rows = await store.db.query(query);
  const v = Object.values(rows[0])[0];
  return typeof v === 'bigint' ? Number(v) : v;
}

l('a redelivered event is stored once, within a batch and across batches, live or late', async () => {
  const live = ev(1, 'e', '2024-06-15T10:00:00Z');
  const late = ev(2, 'e', '2023-01-01T10:00:00Z');
  const first = await store.loader.load({ events: [live, late, live] });
  assert.is(first.inserted, 2);
  const again = await store.loader.load({ events: [ev(3, 'e', '2024-06-15T10:00:01Z'), late, live] });
  assert.is(again.inserted, 1);
  assert.is(await scalar(sql`SELECT count(*) FROM events`), 3);
  assert.is(await scalar(sql`SELECT count(DISTINCT uuid) FROM events`), 3);
});

l('the hot properties land in their columns, everything in the JSON', async () => {
  await store.loader.load({ events: [ev(1, '$pageview', '2024-06-15T10:00:00Z', { $browser: 'Firefox', $session_id: 's1', $current_url: 'https://x/', other: { deep: [1, 2] } })] });
  const rows = await store.db.query(sql`SELECT browser, session_id, current_url, os, json_extract(properties, '/other/deep/1')::INTEGER AS deep FROM events`);
  assert.equal(rows, [{ browser: 'Firefox', session_id: 's1', current_url: 'https://x/', os: null, deep: 2 }]);
});

l('the position moves with its batch; a failing batch leaves neither rows nor position', async () => {
  await store.loader.load({ events: [ev(1, 'e', '2024-06-15T10:00:00Z')], position: { name: 'aggregation', seq: 7 } });
  assert.is(await store.loader.position('aggregation'), 7);
  assert.is(await store.loader.position('other'), 0);
  const bad = { ...ev(2, 'e', '2024-06-15T10:00:00Z'), person_id: 'not a uuid' };
  let failed = false;
  try {
    await store.loader.load({ events: [ev(3, 'e', '2024-06-15T10:00:00Z'), bad], position: { name: 'aggregation', seq: 9 } });
  } catch {
    failed = true;
  }
  assert.ok(failed);
  assert.is(await store.loader.position('aggregation'), 7);
  assert.is(await scalar(sql`SELECT count(*) FROM events`), 1);
  // The loader goes on after a failed batch.
  await store.loader.load({ events: [ev(4, 'e', '2024-06-15T10:00:00Z')], position: { name: 'aggregation', seq: 10 } });
  assert.is(await store.loader.position('aggregation'), 10);
});

l('text the JSON reader would refuse (lone surrogates) is stored with a replacement character', async () => {
  await store.loader.load({ events: [ev(1, 'e\ud800', '2024-06-15T10:00:00Z', { k: 'a\udc00b', 'q\\ud800': 'backslash kept' })] });
  const rows = await store.db.query(sql`SELECT event, json_extract_string(properties, '/k') AS k, json_extract_string(properties, '/q\\ud800') AS q FROM events`);
  assert.equal(rows, [{ event: 'e\ufffd', k: 'a\ufffdb', q: 'backslash kept' }]);
});

l('an event or a person past the default JSON object size of DuckDB (16 MiB) is loaded, beside ordinary ones', async () => {
  // Capture accepts events up to its decompressed cap (64 MiB); the reader refused any
  // line over 16 MiB, so such an event never reached insights.
  const big = 'x'.repeat(17 * 1024 * 1024);
  const multibyte = 'é'.repeat(6 * 1024 * 1024); // 12 MiB of characters' UTF-8: 6 M UTF-16 units
  await store.loader.load({
    events: [ev(1, 'big', '2024-06-15T10:00:00Z', { big }), ev(2, 'small', '2024-06-15T10:00:01Z'), ev(3, 'wide', '2024-06-15T10:00:02Z', { a: multibyte, b: multibyte })],
    persons: [{ project_id: PROJECT, id: person(1), created_at: '2024-06-15T10:00:00Z', properties: { big } }],
  });
  assert.is(await scalar(sql`SELECT count(*) FROM events`), 3);
  assert.is(await scalar(sql`SELECT length(json_extract_string(properties, '/big')) FROM events WHERE event = 'big'`), big.length);
  assert.is(await scalar(sql`SELECT length(json_extract_string(properties, '/b')) FROM events WHERE event = 'wide'`), multibyte.length);
  assert.is(await scalar(sql`SELECT length(json_extract_string(properties, '/big')) FROM persons`), big.length);
});

l('persons are replaced whole; a deleted person leaves its events', async () => {
  const at = '2024-01-01T00:00:00Z';
  await store.loader.load({ persons: [{ project_id: PROJECT, id: person(1), created_at: at, properties: { a: 1 } }] });
  await store.loader.load({ persons: [{ project_id: PROJECT, id: person(1), created_at: at, properties: { b: 2 } }], events: [ev(1, 'e', '2024-06-15T10:00:00Z')] });
  assert.is(await scalar(sql`SELECT properties::VARCHAR FROM persons`), '{"b":2}');
  await store.loader.load({ deletedPersons: [{ project_id: PROJECT, id: person(1) }] });
  assert.is(await scalar(sql`SELECT count(*) FROM persons`), 0);
  assert.is(await scalar(sql`SELECT count(*) FROM events`), 1);
});

l('merges move events to the surviving person, through chains of merges', async () => {
  const ids = (n: number, d: string) => ({ project_id: PROJECT, distinct_id: d, person_id: person(n) });
  await store.loader.load({
    events: [ev(1, 'e', '2024-06-15T10:00:00Z', {}, 'a'), ev(2, 'e', '2024-06-15T10:00:00Z', {}, 'b'), ev(3, 'e', '2024-06-15T10:00:00Z', {}, 'c')],
    distinctIds: [ids(1, 'a'), ids(2, 'b'), ids(3, 'c')],
  });
  // a's person merges into b's; then b's (now with a) into c's.
  assert.is((await store.loader.load({ distinctIds: [ids(2, 'a'), ids(2, 'b')] })).moved, 1);
  assert.is((await store.loader.load({ distinctIds: [ids(3, 'b')] })).moved, 1);
  assert.is(await scalar(sql`SELECT count(DISTINCT person_id) FROM events`), 1);
  assert.is(await scalar(sql`SELECT count(*) FROM person_distinct_ids WHERE person_id = ${person(3)}::UUID`), 3);
  // A mapping that does not change moves nothing.
  assert.is((await store.loader.load({ distinctIds: [ids(3, 'c')] })).moved, 0);
});

l('closing interrupts the query in flight and waits for it; the store refuses work after', async () => {
  // Long enough that close comes while DuckDB still runs it.
  const long = store.db.query(sql`SELECT count(*) FROM range(10000000000) a WHERE a.range % 7 = 3`);
  const outcome = long.then(() => 'answered', (err: Error) => err.message);
  await new Promise((r) => setTimeout(r, 50));
  await store.db.close();
  assert.match(await outcome, /interrupt/i);
  let refused = '';
  try { await store.db.query(sql`SELECT 1`); } catch (err) { refused = (err as Error).message; }
  assert.is(refused, 'the columnar store is closed');
});

l.run();
