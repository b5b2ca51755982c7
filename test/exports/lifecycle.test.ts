// An export's life beyond the quick path, against the real server: renders that go to the
// background (slow or large), failures recorded on the asset, expiry (reads answer 404 from
// the moment an asset expires; the sweep deletes it and its file, at an injected time),
// and restarts (files survive, interrupted renders resume or fail visibly).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { apiClient, type ApiCall } from '../helpers/api.js';
import { eventually, startTestServer, tempDir, NO_DESTINATIONS, type TestServer } from '../helpers/server.js';
import { parseCsv } from '../helpers/csv.js';
import { decodePng } from '../helpers/png.js';
import { COMMANDS } from '../helpers/commands.js';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { createLocalWrites } from '../../src/state/index.js';
import { insertExportCommand } from '../../src/exports/assets/commands.js';
import { sweepExports } from '../../src/exports/assets/sweep.js';
import { INTERRUPTED } from '../../src/exports/assets/jobs.js';
import type { ExportRecord } from '../../src/exports/assets/asset-store.js';
import { content, loadEvents, saveInsight, settled } from './helpers.js';

const env = (t: TestServer) => `/api/environments/${t.projectId}`;
const post = (t: TestServer, api: ApiCall, body: unknown) => api('POST', `${env(t)}/exports/`, t.personalKey, body);
const files = (t: TestServer) => (existsSync(join(t.dataDir, 'exports')) ? readdirSync(join(t.dataDir, 'exports')) : []);
const signups = { kind: 'EventsQuery', select: ['event', 'distinct_id'], event: 'signed_up', after: '-7d', orderBy: ['timestamp DESC'], limit: 50 };

// Each in-process server costs about 2 s of CPU to start: suites share one where their
// state does not interfere. The background render and the periodic sweep share a fresh
// server (its first render also starts the render pool: far longer than no wait); the
// large results, failures and expiry share one with the restarts, whose first server it is.
const background = suite('exports: a render slower than the wait finishes in the background; the periodic sweep');
let t0: TestServer;
let api0: ApiCall;
background.before(async () => {
  t0 = await startTestServer({ env: { HEDGEROW_EXPORT_SYNC_MS: '0', HEDGEROW_EXPORT_SWEEP_MS: '50' }, consumers: NO_DESTINATIONS });
  api0 = apiClient(t0);
});
background.after(async () => { await t0?.close(); });

background('201 without the file, 404 for its content until it is there, then the file', async () => {
  // The first export of a fresh server also starts the render pool: far longer than no wait.
  const r = await post(t0, api0, { export_format: 'image/png', export_context: { source: signups } });
  assert.is(r.status, 201);
  assert.is(r.body.has_content, false);
  assert.is(r.body.exception, null);
  assert.is((await content(t0, r.body.id)).status, 404);
  const done = await settled(t0, api0, r.body.id);
  assert.is(done.has_content, true);
  assert.is(done.exception, null);
  const file = await content(t0, r.body.id);
  assert.is(file.status, 200);
  assert.is(decodePng(file.bytes).width, 1200);
});

// Its render may still run when the sweep deletes the asset: a late outcome is not recorded
// for an asset that is gone (exports.finish), so the record stays deleted either way.
background('the periodic sweep runs on its own: an expired export\'s record is deleted', async () => {
  const r = await post(t0, api0, { export_format: 'application/json', export_context: { source: signups }, expires_after: '2020-01-01' });
  assert.is(r.status, 201);
  await eventually(async () => t0.server.store.exports.get([t0.projectId, r.body.id]) === undefined, 10_000);
});

background.run();

const large = suite('exports: large results, failures, expiry; restarts');
// The server of the moment: the tests of restarts stop it and start the next on its data dir.
let t: TestServer;
let api: ApiCall;
let running = false;
const dataDir = tempDir('hedgerow-exports-lifecycle-');
async function stop(): Promise<void> {
  if (!running) return;
  running = false;
  await t.close();
}
async function start(env: NodeJS.ProcessEnv): Promise<void> {
  t = await startTestServer({ dataDir, env, consumers: NO_DESTINATIONS });
  running = true;
  api = apiClient(t);
}
large.before(async () => {
  await start({ HEDGEROW_EXPORT_SYNC_MS: '120000', HEDGEROW_EXPORT_SYNC_ROWS: '3' });
  await loadEvents(t, api);
});
large.after(async () => {
  await stop();
  rmSync(dataDir, { recursive: true, force: true });
});

large('more rows than the limit: 201 at once without the file, rendered in the background; fewer: rendered before the 201', async () => {
  const table = await saveInsight(t, api, 'All sign-ups', signups);
  const r = await post(t, api, { insight: table.id, export_format: 'text/csv' });
  assert.is(r.status, 201);
  assert.is(r.body.has_content, false);
  const done = await settled(t, api, r.body.id);
  assert.is(done.has_content, true);
  const rows = parseCsv((await content(t, r.body.id)).bytes.toString('utf8'));
  assert.ok(rows.length > 4, `${rows.length - 1} rows`);
  const trend = await saveInsight(t, api, 'Sign-ups', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: 'signed_up' }] });
  const quick = await post(t, api, { insight: trend.id, export_format: 'text/csv' });
  assert.is(quick.body.has_content, true);
});

large('a render that fails records why on the asset; its content stays 404', async () => {
  // Passes validation; fails when DuckDB casts a browser name to a time.
  const broken = await saveInsight(t, api, 'Broken', { kind: 'EventsQuery', select: ['event'], where: ['timestamp > properties.$browser'], after: '-7d' });
  const r = await post(t, api, { insight: broken.id, export_format: 'text/csv' });
  assert.is(r.status, 201);
  assert.is(r.body.has_content, false);
  assert.type(r.body.exception, 'string');
  assert.match(r.body.exception, /timestamp|convert|Conversion/i);
  assert.is((await content(t, r.body.id)).status, 404);
  assert.is((await api('GET', `${env(t)}/exports/${r.body.id}/`, t.personalKey)).body.exception, r.body.exception);
});

large('expiry: an expired export is gone for every read at once; the sweep deletes it and then its file', async () => {
  const trend = await saveInsight(t, api, 'Page views', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] });
  const kept = await post(t, api, { insight: trend.id, export_format: 'application/pdf' });
  const expiring = await post(t, api, { insight: trend.id, export_format: 'image/png', expires_after: new Date(Date.now() + 3_600_000).toISOString() });
  const expired = await post(t, api, { insight: trend.id, export_format: 'text/csv', expires_after: '2020-01-01T00:00:00Z' });
  for (const r of [kept, expiring, expired]) assert.is(r.body.has_content, true);
  const record = (id: number) => t.server.store.exports.get([t.projectId, id]) as ExportRecord | undefined;
  const hashOf = (id: number) => record(id)!.content!.sha256;
  const [keptFile, expiringFile, expiredFile] = [kept, expiring, expired].map((r) => hashOf(r.body.id));
  assert.ok([keptFile, expiringFile, expiredFile].every((f) => files(t).includes(f)));

  assert.is((await api('GET', `${env(t)}/exports/${expired.body.id}/`, t.personalKey)).status, 404);
  assert.is((await content(t, expired.body.id)).status, 404);
  const listed = await api('GET', `${env(t)}/exports/`, t.personalKey);
  assert.ok(!listed.body.results.some((a: { id: number }) => a.id === expired.body.id));
  assert.is((await content(t, expiring.body.id)).status, 200);

  // Two hours on: the expiring export has expired too; files outlive the grace period.
  const dir = join(t.dataDir, 'exports');
  const later = new Date(Date.now() + 2 * 3_600_000);
  const swept = await sweepExports({ store: t.server.store, writes: t.server.writes, dir }, later);
  assert.ok(swept.expired >= 2, `${swept.expired} assets expired`);
  assert.is(record(expired.body.id), undefined);
  assert.is(record(expiring.body.id), undefined);
  assert.ok(!files(t).includes(expiredFile) && !files(t).includes(expiringFile), 'their files are deleted');
  assert.ok(files(t).includes(keptFile), 'a live export keeps its file');
  assert.is((await content(t, kept.body.id)).status, 200);
  assert.is((await content(t, expiring.body.id)).status, 404);
  // Nothing more to do on a second pass.
  assert.equal(await sweepExports({ store: t.server.store, writes: t.server.writes, dir }, later), { expired: 0, files: 0 });
});

// The server above, stopped: what a render in hand and a crash leave on its data dir.
large('files and assets survive a restart; interrupted renders resume, or fail visibly after their attempts', async () => {
  const [first, api1] = [t, api];
  const trend = await saveInsight(first, api1, 'Page views', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] });
  const gone = await saveInsight(first, api1, 'Deleted later', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] });
  const done = await post(first, api1, { insight: trend.id, export_format: 'image/png' });
  const before = await content(first, done.body.id);
  assert.is(before.status, 200);
  await api1('PATCH', `${env(first)}/insights/${gone.id}/`, first.personalKey, { deleted: true });
  const admin = first.server.tenancy.userByEmail('admin@hedgerow.local')!;
  const projectId = first.projectId;
  await stop();

  // As a crash would leave them: assets written, never rendered; one already retried once.
  const store = openStore(dataDir, tables);
  const writes = createLocalWrites(store, COMMANDS);
  const pending = (insight: number, attempts: number) => writes.submit(insertExportCommand, {
    project_id: projectId, created_by: admin.id, dashboard: null, insight, export_format: 'text/csv', export_context: null,
    created_at: new Date().toISOString(), expires_after: '2099-01-01T00:00:00.000Z', filename: 'export-page-views.csv',
    content: null, exception: null, attempts,
  });
  const resumed = await pending(trend.id, 1);
  const exhausted = await pending(trend.id, 2);
  const orphaned = await pending(gone.id, 1);
  await store.close();

  // No wait for a file (this test creates none on it): the next test's render is still in
  // hand when it stops this server.
  await start({ HEDGEROW_EXPORT_SYNC_MS: '0' });
  const [second, api2] = [t, api];
  const after = await content(second, done.body.id);
  assert.is(after.status, 200);
  assert.ok(after.bytes.equals(before.bytes), 'the file is the one rendered before the restart');
  assert.equal((await api2('GET', `${env(second)}/exports/${done.body.id}/`, second.personalKey)).body, done.body);

  const again = await settled(second, api2, resumed.id);
  assert.is(again.has_content, true, String(again.exception));
  const rows = parseCsv((await content(second, resumed.id)).bytes.toString('utf8'));
  assert.is(rows[0][0], 'series');
  const failed = await settled(second, api2, exhausted.id);
  assert.is(failed.has_content, false);
  assert.is(failed.exception, INTERRUPTED);
  const lost = await settled(second, api2, orphaned.id);
  assert.is(lost.exception, 'The insight was deleted.');
  assert.is((await content(second, orphaned.id)).status, 404);
});

large('a render the stopping service interrupted is finished by the next start', async () => {
  const [first, api1] = [t, api];
  const trend = await saveInsight(first, api1, 'Page views', { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }] });
  const made = await post(first, api1, { insight: trend.id, export_format: 'application/pdf' });
  assert.is(made.body.has_content, false);
  await stop();
  await start({});
  const done = await settled(t, api, made.body.id);
  assert.is(done.has_content, true, String(done.exception));
  assert.is((await content(t, made.body.id)).bytes.subarray(0, 5).toString('latin1'), '%PDF-');
});

large.run();
