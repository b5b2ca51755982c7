// The dashboards API against the real server over HTTP: PostHog's fields, tiles (insights
// added through the insight's `dashboards`, text cards through the dashboard's `tiles`), the
// dashboard's filters over every tile's query, refresh modes, soft delete and undelete, a
// copy (sharing the insights, or copying them with duplicate_tiles), restriction levels and scopes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { apiClient, denied, type ApiCall } from '../helpers/api.js';
import { startTestServer, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { loadEvents, pageviewsQuery, saveInsight } from '../exports/helpers.js';

const s = suite('dashboards: the dashboards API');
let t: TestServer;
let api: ApiCall;
const env = () => `/api/environments/${t.projectId}`;
const projects = () => `/api/projects/${t.projectId}`;

s.before(async () => {
  t = await startTestServer({ consumers: NO_DESTINATIONS });
  api = apiClient(t);
  await loadEvents(t, api);
});

s.after(async () => {
  await t.close();
});

async function dashboard(body: Record<string, unknown>): Promise<Record<string, any>> {
  const r = await api('POST', `${env()}/dashboards/`, t.personalKey, body);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
}

s('create, read under both prefixes, list pinned first then by name, DELETE 405', async () => {
  const b = await dashboard({ name: 'B board', description: 'about b', tags: ['growth'] });
  assert.is(b.name, 'B board');
  assert.is(b.description, 'about b');
  assert.equal(b.tags, ['growth']);
  assert.equal(b.tiles, []);
  assert.equal(b.filters, {});
  assert.is(b.creation_mode, 'default');
  assert.is(b.restriction_level, 21);
  assert.is(b.created_by.email, 'admin@hedgerow.local');
  const a = await dashboard({ name: 'A board' });
  const z = await dashboard({ name: 'Z board', pinned: true });
  const list = await api('GET', `${projects()}/dashboards/`, t.personalKey);
  assert.is(list.status, 200);
  const names = list.body.results.map((d: any) => d.name);
  assert.ok(names.indexOf('Z board') < names.indexOf('A board') && names.indexOf('A board') < names.indexOf('B board'), names.join());
  assert.not.ok('tiles' in list.body.results[0], 'no tiles in a list');
  const tagged = await api('GET', `${env()}/dashboards/?tags=growth`, t.personalKey);
  assert.equal(tagged.body.results.map((d: any) => d.id), [b.id]);
  assert.is((await api('GET', `${projects()}/dashboards/${a.id}/`, t.personalKey)).body.id, a.id);
  assert.is((await api('DELETE', `${env()}/dashboards/${z.id}/`, t.personalKey)).status, 405);
  const bad = await api('POST', `${env()}/dashboards/`, t.personalKey, { name: 'x', filters: [1] });
  assert.is(bad.status, 400);
  assert.is(bad.body.detail, 'Filters must be a dictionary');
});

s('insights join a dashboard through their `dashboards`; the tile shows the insight under the dashboard\'s filters, ordered by layout', async () => {
  const d = await dashboard({ name: 'Traffic', filters: { date_from: '-3d' } });
  const views = await saveInsight(t, api, 'Views', pageviewsQuery);
  const signups = await saveInsight(t, api, 'Sign-ups', { ...pageviewsQuery, series: [{ kind: 'EventsNode', event: 'signed_up' }] });
  for (const i of [views, signups]) {
    const r = await api('PATCH', `${env()}/insights/${i.id}/`, t.personalKey, { dashboards: [d.id] });
    assert.is(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.dashboards, [d.id]);
    assert.is(r.body.dashboard_tiles.length, 1);
    assert.is(r.body.dashboard_tiles[0].dashboard_id, d.id);
  }
  const read = await api('GET', `${env()}/dashboards/${d.id}/`, t.personalKey);
  assert.is(read.body.tiles.length, 2);
  // Lay the sign-ups above the views; add a text card.
  const [tv, ts] = [views.id, signups.id].map((id) => read.body.tiles.find((x: any) => x.insight.id === id));
  const laid = await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, {
    tiles: [
      { id: tv.id, layouts: { sm: { x: 0, y: 5, w: 6, h: 5 } }, color: 'blue' },
      { id: ts.id, layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } },
      { text: { body: 'Read me first' }, layouts: { sm: { x: 6, y: 0, w: 6, h: 5 } } },
    ],
  });
  assert.is(laid.status, 200, JSON.stringify(laid.body));
  assert.equal(laid.body.tiles.map((x: any) => x.insight?.name ?? x.text.body), ['Sign-ups', 'Read me first', 'Views']);
  assert.equal(laid.body.tiles.map((x: any) => x.order), [0, 1, 2]);
  assert.is(laid.body.tiles[2].color, 'blue');
  assert.is(laid.body.tiles[1].text.created_by.email, 'admin@hedgerow.local');
  // The dashboard's date range is on each tile's query (the saved insight keeps its own).
  const tile = laid.body.tiles[0];
  assert.is(tile.insight.query.source.dateRange.date_from, '-3d');
  assert.is(tile.insight.filters && Object.keys(tile.insight.filters).length, 0);
  const saved = await api('GET', `${env()}/insights/${signups.id}/`, t.personalKey);
  assert.is(saved.body.query.source.dateRange.date_from, '-7d');
  // force_cache (the default) calculates nothing; blocking calculates every tile, with the filters.
  const blocking = await api('GET', `${env()}/dashboards/${d.id}/?refresh=blocking`, t.personalKey);
  const viewsTile = blocking.body.tiles.find((x: any) => x.insight?.id === views.id);
  assert.is(viewsTile.insight.result[0].days.length, 4, 'the last 3 days and today');
  assert.ok(viewsTile.last_refresh);
  const week = await api('POST', `${env()}/query/`, t.personalKey, { query: { ...pageviewsQuery, dateRange: { date_from: '-3d' } } });
  assert.equal(viewsTile.insight.result[0].data, week.body.results[0].data);
  // filters_override for one request; a tile's own overrides win over the dashboard's.
  const over = await api('GET', `${env()}/dashboards/${d.id}/?filters_override=${encodeURIComponent('{"date_from":"-5d"}')}`, t.personalKey);
  assert.is(over.body.filters.date_from, '-5d');
  assert.is(over.body.persisted_filters.date_from, '-3d');
  assert.is(over.body.tiles[0].insight.query.source.dateRange.date_from, '-5d');
  const bad = await api('GET', `${env()}/dashboards/${d.id}/?filters_override=nope`, t.personalKey);
  assert.is(bad.status, 400);
  assert.is(bad.body.detail, 'Invalid JSON passed in filters_override parameter');
  await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, { tiles: [{ id: ts.id, filters_overrides: { date_from: '-1d' } }] });
  const own = await api('GET', `${env()}/dashboards/${d.id}/`, t.personalKey);
  assert.is(own.body.tiles[0].insight.query.source.dateRange.date_from, '-1d');
  // Removing the insight from the dashboard (its `dashboards` emptied) removes its tile.
  const removed = await api('PATCH', `${env()}/insights/${views.id}/`, t.personalKey, { dashboards: [] });
  assert.equal(removed.body.dashboards, []);
  assert.is(removed.body.dashboard_tiles[0].deleted, true);
  const after = await api('GET', `${env()}/dashboards/${d.id}/`, t.personalKey);
  assert.equal(after.body.tiles.map((x: any) => x.insight?.name ?? x.text.body), ['Sign-ups', 'Read me first']);
  // Added back: the same tile, undeleted.
  const back = await api('PATCH', `${env()}/insights/${views.id}/`, t.personalKey, { dashboards: [d.id] });
  assert.equal(back.body.dashboard_tiles, [{ id: tv.id, dashboard_id: d.id, deleted: false }]);
  // Deleting an insight takes it off its dashboards.
  await api('PATCH', `${env()}/insights/${views.id}/`, t.personalKey, { deleted: true });
  assert.is((await api('GET', `${env()}/dashboards/${d.id}/`, t.personalKey)).body.tiles.length, 2);
  const unknown = await api('PATCH', `${env()}/insights/${signups.id}/`, t.personalKey, { dashboards: [999999] });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.detail, 'Dashboard not found');
});

s('soft delete hides the dashboard and its tiles; exactly {deleted: false} brings them back; a copy shares the tiles', async () => {
  const d = await dashboard({ name: 'Doomed' });
  const i = await saveInsight(t, api, 'On doomed', pageviewsQuery);
  await api('PATCH', `${env()}/insights/${i.id}/`, t.personalKey, { dashboards: [d.id] });
  await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, { tiles: [{ text: { body: 'note' } }] });
  const copy = await dashboard({ name: 'Copy', use_dashboard: d.id });
  assert.is(copy.creation_mode, 'duplicate');
  assert.equal(copy.tiles.map((x: any) => x.insight?.id ?? x.text.body).sort(), [i.id, 'note'].sort());
  const gone = await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, { deleted: true });
  assert.is(gone.status, 200);
  assert.is(gone.body.deleted, true);
  assert.is((await api('GET', `${env()}/dashboards/${d.id}/`, t.personalKey)).status, 404);
  assert.not.ok((await api('GET', `${env()}/dashboards/?limit=100`, t.personalKey)).body.results.some((x: any) => x.id === d.id));
  assert.equal((await api('GET', `${env()}/insights/${i.id}/`, t.personalKey)).body.dashboards, [copy.id]);
  assert.is((await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, { name: 'x' })).status, 404);
  const back = await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, { deleted: false });
  assert.is(back.status, 200);
  assert.is(back.body.tiles.length, 2);
  assert.equal((await api('GET', `${env()}/insights/${i.id}/`, t.personalKey)).body.dashboards.sort(), [d.id, copy.id].sort());
  const bad = await api('POST', `${env()}/dashboards/`, t.personalKey, { name: 'x', use_dashboard: 999999 });
  assert.is(bad.status, 400);
  assert.is(bad.body.attr, 'use_dashboard');
});

s('a copy with duplicate_tiles copies the insights (new ids and short ids, "(Copy)" names, on the copy only) and the texts', async () => {
  const d = await dashboard({ name: 'Original' });
  const named: Record<string, any> = await saveInsight(t, api, 'Views', pageviewsQuery);
  const unnamed = await api('POST', `${env()}/insights/`, t.personalKey, { query: named.query, tags: ['kept'], dashboards: [d.id] });
  assert.is(unnamed.status, 201, JSON.stringify(unnamed.body));
  await api('PATCH', `${env()}/insights/${named.id}/`, t.personalKey, { dashboards: [d.id] });
  const src = await api('GET', `${env()}/dashboards/${d.id}/`, t.personalKey);
  const namedTile = src.body.tiles.find((x: any) => x.insight?.id === named.id);
  await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, {
    tiles: [{ id: namedTile.id, color: 'blue', layouts: { sm: { x: 0, y: 0, w: 6, h: 5 } } }, { text: { body: 'a note' } }],
  });
  const deep = await dashboard({ name: 'Deep', use_dashboard: d.id, duplicate_tiles: true });
  assert.is(deep.creation_mode, 'duplicate');
  assert.is(deep.tiles.length, 3);
  const insights = deep.tiles.filter((x: any) => x.insight).map((x: any) => x.insight);
  assert.is(insights.length, 2);
  for (const i of insights) {
    assert.not.ok([named.id, unnamed.body.id].includes(i.id), 'a new insight');
    assert.not.ok([named.short_id, unnamed.body.short_id].includes(i.short_id), 'a new short id');
    assert.equal(i.dashboards, [deep.id], 'the copy is on the new dashboard only');
    assert.equal(i.query, named.query);
  }
  assert.equal(insights.map((i: any) => i.name).sort((a: any, b: any) => String(a).localeCompare(String(b))), [null, 'Views (Copy)'].sort((a: any, b: any) => String(a).localeCompare(String(b))));
  assert.equal(insights.find((i: any) => i.name === null).tags, ['kept']);
  const copiedTile = deep.tiles.find((x: any) => x.insight?.name === 'Views (Copy)');
  assert.is(copiedTile.color, 'blue');
  assert.equal(copiedTile.layouts, { sm: { x: 0, y: 0, w: 6, h: 5 } });
  const text = deep.tiles.find((x: any) => x.text);
  assert.is(text.text.body, 'a note');
  assert.not.equal(text.text.id, src.body.tiles.find((x: any) => x.text)?.text?.id ?? -1);
  // The originals stay on the original dashboard only; renaming a copy leaves them alone.
  assert.equal((await api('GET', `${env()}/insights/${named.id}/`, t.personalKey)).body.dashboards, [d.id]);
  const copy = insights.find((i: any) => i.name === 'Views (Copy)');
  await api('PATCH', `${env()}/insights/${copy.id}/`, t.personalKey, { name: 'Renamed copy' });
  assert.is((await api('GET', `${env()}/insights/${named.id}/`, t.personalKey)).body.name, 'Views');
  // Without duplicate_tiles (or with a false one) the copy's tiles show the same insights.
  const shallow = await dashboard({ name: 'Shallow', use_dashboard: d.id, duplicate_tiles: false });
  assert.equal(shallow.tiles.filter((x: any) => x.insight).map((x: any) => x.insight.id).sort(), [named.id, unnamed.body.id].sort());
  assert.equal((await api('GET', `${env()}/insights/${named.id}/`, t.personalKey)).body.dashboards.sort(), [d.id, shallow.id].sort());
});

s('scopes: dashboard:read reads, dashboard:write changes; a restricted dashboard is edited by its creator and admins only', async () => {
  const d = await dashboard({ name: 'Scoped' });
  const reader = await addUser(t, { scopes: ['dashboard:read'] });
  const other = await addUser(t, { scopes: ['insight:write'] });
  assert.is((await api('GET', `${env()}/dashboards/${d.id}/`, reader.key)).status, 200);
  const refused = await api('PATCH', `${env()}/dashboards/${d.id}/`, reader.key, { name: 'x' });
  assert.is(refused.status, 403);
  assert.equal(refused.body, denied("API key missing required scope 'dashboard:write'"));
  assert.is((await api('GET', `${env()}/dashboards/`, other.key)).status, 403);
  const member = await addUser(t, { scopes: ['dashboard:write', 'insight:write'] });
  const restricted = await api('PATCH', `${env()}/dashboards/${d.id}/`, member.key, { restriction_level: 37 });
  assert.is(restricted.status, 403);
  assert.ok(restricted.body.detail.startsWith('Only the dashboard owner'));
  assert.is((await api('PATCH', `${env()}/dashboards/${d.id}/`, t.personalKey, { restriction_level: 37 })).status, 200);
  const edit = await api('PATCH', `${env()}/dashboards/${d.id}/`, member.key, { name: 'mine now' });
  assert.is(edit.status, 403);
  assert.is(edit.body.detail, "You don't have edit permissions for this dashboard.");
  const view = await api('GET', `${env()}/dashboards/${d.id}/`, member.key);
  assert.is(view.body.effective_privilege_level, 21);
  const i = await saveInsight(t, api, 'Mine', pageviewsQuery);
  const add = await api('PATCH', `${env()}/insights/${i.id}/`, member.key, { dashboards: [d.id] });
  assert.is(add.status, 403);
  assert.is(add.body.detail, `You don't have permission to add insights to dashboard: ${d.id}`);
  // Taking it off is refused the same way, before anything of the insight is saved.
  assert.is((await api('PATCH', `${env()}/insights/${i.id}/`, t.personalKey, { dashboards: [d.id] })).status, 200);
  const off = await api('PATCH', `${env()}/insights/${i.id}/`, member.key, { name: 'renamed', dashboards: [] });
  assert.is(off.status, 403);
  assert.is(off.body.detail, `You don't have permission to remove insights from dashboard: ${d.id}`);
  const kept = await api('GET', `${env()}/insights/${i.id}/`, t.personalKey);
  assert.is(kept.body.name, 'Mine');
  assert.equal(kept.body.dashboards, [d.id]);
});

s.run();
