import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { startTestServer, postJson, request, bearer, eventually, EVENTS_ONLY, type TestServer } from '../helpers/server.js';

const s = suite('events API');
let t: TestServer;
const base = () => `${t.url}/api/environments/${t.projectId}/events/`;
const get = (url: string, key = t.personalKey) => request(url, { headers: bearer(key) });

const uuids = Array.from({ length: 5 }, () => randomUUID());
const start = Date.now() - 10 * 60_000;

s.before(async () => {
  t = await startTestServer({ consumers: EVENTS_ONLY });
  const batch = uuids.map((uuid, i) => ({
    uuid, event: i % 2 ? 'odd' : 'even', distinct_id: i < 3 ? 'alice' : 'bob',
    timestamp: new Date(start + i * 60_000).toISOString(), properties: { i },
  }));
  assert.is((await postJson(`${t.url}/batch/`, { api_key: t.projectKey, batch })).status, 200);
  await eventually(async () => (await get(base())).body?.results?.length === 5);
});
s.after(async () => { await t.close(); });

s('lists newest first in PostHog shape', async () => {
  const r = await get(base());
  assert.is(r.status, 200);
  assert.is(r.body.next, null);
  assert.equal(r.body.results.map((e: { uuid: string }) => e.uuid), [...uuids].reverse());
  const e = r.body.results[0];
  assert.equal(Object.keys(e).sort(), ['distinct_id', 'elements', 'elements_chain', 'event', 'id', 'person', 'properties', 'timestamp', 'uuid']);
  assert.is(e.id, e.uuid);
  assert.equal(e.elements, []);
});

s('filters by event, distinct_id, after and before', async () => {
  const only = async (q: string) => (await get(`${base()}?${q}`)).body.results.map((e: { properties: { i: number } }) => e.properties.i);
  assert.equal(await only('event=odd'), [3, 1]);
  assert.equal(await only('distinct_id=bob'), [4, 3]);
  assert.equal(await only(`after=${encodeURIComponent(new Date(start + 60_000).toISOString())}`), [4, 3, 2]);
  assert.equal(await only(`before=${encodeURIComponent(new Date(start + 2 * 60_000).toISOString())}`), [1, 0]);
});

s('limit pages with an absolute next URL until the end', async () => {
  const seen: string[] = [];
  let url: string | null = `${base()}?limit=2`;
  let pages = 0;
  while (url) {
    const r = await get(url);
    assert.is(r.status, 200);
    seen.push(...r.body.results.map((e: { uuid: string }) => e.uuid));
    url = r.body.next;
    if (url) assert.match(url, /^http:\/\//);
    pages++;
  }
  assert.is(pages, 3);
  assert.equal(seen, [...uuids].reverse());
});

s('an invalid limit or date is a 400 naming the parameter', async () => {
  const r = await get(`${base()}?limit=abc`);
  assert.is(r.status, 400);
  assert.is(r.body.attr, 'limit');
  assert.is((await get(`${base()}?after=notadate`)).body.attr, 'after');
});

s('one event by uuid, 404 for an unknown one', async () => {
  const r = await get(`${base()}${uuids[2]}/`);
  assert.is(r.status, 200);
  assert.is(r.body.uuid, uuids[2]);
  const missing = await get(`${base()}${randomUUID()}/`);
  assert.is(missing.status, 404);
  assert.equal(missing.body, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null });
});

s('@current names the key owner\'s project', async () => {
  const r = await get(`${t.url}/api/environments/@current/events/?limit=1`);
  assert.is(r.status, 200);
  assert.is(r.body.results[0].uuid, uuids[4]);
});

s('the same API answers under /api/projects/, the path PostHog documents', async () => {
  const list = await get(`${t.url}/api/projects/${t.projectId}/events/?limit=1`);
  assert.is(list.status, 200);
  assert.is(list.body.results[0].uuid, uuids[4]);
  assert.is((await get(`${t.url}/api/projects/@current/events/${uuids[2]}/`)).body.uuid, uuids[2]);
  assert.is((await get(`${t.url}/api/projects/${t.projectId}/events/values/?key=$browser`)).status, 200);
});

s('no key is 401 not_authenticated; a wrong key 401 authentication_failed', async () => {
  const none = await request(base());
  assert.is(none.status, 401);
  assert.equal(none.body, { type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null });
  const bad = await get(base(), 'phx_wrong');
  assert.is(bad.status, 401);
  assert.is(bad.body.code, 'authentication_failed');
});

s('a key without query:read is 403 naming the scope', async () => {
  const admin = t.server.tenancy.users()[0];
  const { key } = await t.server.tenancy.createPersonalKey(admin.id, ['insight:read'], null, 'narrow');
  const r = await get(base(), key);
  assert.is(r.status, 403);
  assert.equal(r.body, { type: 'authentication_error', code: 'permission_denied', detail: "API key missing required scope 'query:read'", attr: null });
});

s('a key limited to project 1 gets 403 on another project of the organization, 404 on an unknown one', async () => {
  const admin = t.server.tenancy.users()[0];
  const other = await t.server.tenancy.createProject(admin.organization_id, 'Other');
  const { key } = await t.server.tenancy.createPersonalKey(admin.id, ['query:read'], [t.projectId], 'p1 only');
  const r = await get(`${t.url}/api/environments/${other.id}/events/`, key);
  assert.is(r.status, 403);
  assert.is(r.body.detail, `API key does not have access to the requested project: ID ${other.id}.`);
  assert.is((await get(`${t.url}/api/environments/99999/events/`, key)).status, 404);
});

s('events of one project are invisible from another', async () => {
  const admin = t.server.tenancy.users()[0];
  const other = await t.server.tenancy.createProject(admin.organization_id, 'Isolated');
  const r = await get(`${t.url}/api/environments/${other.id}/events/`);
  assert.is(r.status, 200);
  assert.equal(r.body.results, []);
});

s.run();
