import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';

const s = suite('events values API');
let t: TestServer;
const url = (q: string) => `${t.url}/api/environments/${t.projectId}/events/values/?${q}`;

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  const now = Date.now();
  const batch = [
    { event: '$pageview', distinct_id: 'a', properties: { $browser: 'Firefox' } },
    { event: '$pageview', distinct_id: 'a', properties: { $browser: 'Chrome' } },
    { event: '$pageview', distinct_id: 'b', properties: { $browser: 'Chrome' } },
    { event: 'click', distinct_id: 'b', properties: { $browser: 'Safari', n: 3 } },
    { event: '$pageview', distinct_id: 'c', properties: { $browser: 'Opera' }, timestamp: new Date(now - 9 * 86400_000).toISOString() },
    ...Array.from({ length: 15 }, (_, i) => ({ event: 'many', distinct_id: 'd', properties: { k: `v${i}` } })),
  ];
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await eventually(async () => (await request(`${t.url}/api/environments/${t.projectId}/events/?limit=1000`, { headers: bearer(t.personalKey) })).body.results.length === 20);
});
s.after(async () => { await t?.close(); });

const names = async (q: string) => {
  const r = await request(url(q), { headers: bearer(t.personalKey) });
  assert.is(r.status, 200);
  return (r.body as Array<{ name: string }>).map((x) => x.name).sort();
};

s('distinct values of a property over the last 7 days', async () => {
  assert.equal(await names('key=$browser'), ['Chrome', 'Firefox', 'Safari']);
});
s('value filters case-insensitively by substring; event_name narrows events', async () => {
  assert.equal(await names('key=$browser&value=FIRE'), ['Firefox']);
  assert.equal(await names('key=$browser&event_name=click'), ['Safari']);
  assert.equal(await names('key=n'), ['3']);
});
s('at most 10 values', async () => { assert.is((await names('key=k')).length, 10); });
s('format=csv answers text/csv', async () => {
  const res = await fetch(url('key=$browser&event_name=click&format=csv'), { headers: bearer(t.personalKey) });
  assert.is(res.headers.get('content-type'), 'text/csv');
  assert.is(await res.text(), 'name\n"Safari"\n');
});
s('the scan stops after 16 MiB of rows: a value only older than that many bytes of newer events is not found, one newer is', async () => {
  const blob = 'x'.repeat(1024 * 1024);
  const older = { event: 'budget', distinct_id: 'e', properties: { rare: 'old' }, timestamp: new Date(Date.now() - 60_000).toISOString() };
  const newer = Array.from({ length: 18 }, () => ({ event: 'budget', distinct_id: 'e', properties: { blob } }));
  const newest = { event: 'budget', distinct_id: 'e', properties: { rare: 'new' } };
  for (const batch of [[older], newer.slice(0, 9), newer.slice(9), [newest]]) {
    assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  }
  await eventually(async () => (await request(`${t.url}/api/environments/${t.projectId}/events/?event=budget&limit=100`, { headers: bearer(t.personalKey) })).body.results.length === 20);
  assert.equal(await names('key=rare'), ['new']);
});
s('key is required; an unknown format is refused', async () => {
  const r = await request(url(''), { headers: bearer(t.personalKey) });
  assert.is(r.status, 400);
  assert.equal(r.body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'key' });
  assert.is((await request(url('key=a&format=xml'), { headers: bearer(t.personalKey) })).status, 400);
});

s.run();
