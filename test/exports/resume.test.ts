// When pending renders are resumed (src/exports/assets/resume.ts), apart from the server:
// everything at start; with a claim TTL (NATS) every half TTL, only assets one TTL old, and
// only while some may be pending (a scan that found none is not repeated until an asset is
// inserted); without one (embedded), at start only.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { createLocalWrites } from '../../src/state/index.js';
import { COMMANDS } from '../helpers/commands.js';
import { embeddedRenderClaims } from '../helpers/cluster-handle.js';
import { insertExportCommand } from '../../src/exports/assets/commands.js';
import { assetById, type ExportRecord } from '../../src/exports/assets/asset-store.js';
import { createRenderJobs, type ExportSources, type RenderJobs } from '../../src/exports/assets/jobs.js';
import { startResumer } from '../../src/exports/assets/resume.js';
import type { ExportTasks } from '../../src/exports/index.js';
import type { TaskRunner } from '../../src/pools/index.js';
import { createLogger } from '../../src/logger.js';
import { storePerTest } from '../helpers/temp-store.js';

const s = suite('exports: when pending renders resume');
let store: Store;
storePerTest(s, 'hedgerow-export-resume-', (opened) => { store = opened; });

const TTL = 200;
const sources: ExportSources = {
  insight: () => ({ name: 'Views', query: { kind: 'TrendsQuery' } }),
  dashboard: () => null,
  project: (id) => (id === 1 ? ({ id: 1, timezone: 'UTC' } as ReturnType<ExportSources['project']>) : undefined),
  run: async () => ({ results: [] }),
};
// Every render stores the same file at once.
const pool = { run: async () => ({ sha256: 'a'.repeat(64), size: 1 }) } as unknown as TaskRunner<ExportTasks>;

function setup() {
  const writes = createLocalWrites(store, COMMANDS);
  const claims = embeddedRenderClaims();
  const real = createRenderJobs({
    store, writes, sources, pool, claims, dir: '/nonexistent', syncMaxRows: 100, events: { rowLimit: 50_000, pageRows: 10_000 }, timeoutMs: 60_000, log: createLogger('silent'), now: () => new Date(),
  });
  // The scans the resumer makes, with the minimum age each asked for.
  const scans: number[] = [];
  const jobs: RenderJobs = { ...real, resumePending: (minAgeMs = 0) => { scans.push(minAgeMs); return real.resumePending(minAgeMs); } };
  return { writes, claims, jobs, scans, close: () => real.close() };
}

const insert = (writes: ReturnType<typeof createLocalWrites>, createdAt: Date): Promise<ExportRecord> => writes.submit(insertExportCommand, {
  project_id: 1, created_by: 1, dashboard: null, insight: 7, export_format: 'text/csv', export_context: null,
  created_at: createdAt.toISOString(), expires_after: '2099-01-01T00:00:00.000Z', filename: 'export-views.csv', content: null, exception: null, attempts: 1,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}

s('with a claim TTL: a scan at start; none while nothing is pending; a claimed asset waits, a free one old enough is rendered', async () => {
  const { writes, claims, jobs, scans, close } = setup();
  const resumer = startResumer({ jobs, writes, claimTtlMs: TTL, log: createLogger('silent') });
  await until(() => scans.length === 1);
  assert.equal(scans, [0], 'everything at start');
  // Time passing is the point: the resumer scans on a timer, and must not while nothing is pending.
  await sleep(TTL * 2);
  assert.equal(scans, [0], 'nothing pending: no scan');
  // Another node is rendering it (its claim held here by the test).
  const held = await insert(writes, new Date(Date.now() - 10 * TTL));
  assert.ok(await claims.claim(held));
  await until(() => scans.length >= 3);
  assert.equal(scans.slice(1, 3), [TTL, TTL], 'scanned every half TTL while it is pending');
  assert.is(assetById(store, 1, held.id)!.attempts, 1, 'not resumed while claimed');
  // Its node died: the claim is free; the next scan resumes and renders it.
  claims.release(held);
  await until(() => assetById(store, 1, held.id)!.content !== null);
  assert.is(assetById(store, 1, held.id)!.attempts, 2);
  const after = scans.length;
  // As above: two half-TTL periods pass with nothing pending.
  await sleep(TTL * 2);
  assert.ok(scans.length <= after + 1, 'no more scans once none is pending');
  await close();
  await resumer.stop();
});

s('an asset younger than the TTL is left to the node that created it', async () => {
  const { writes, jobs, scans, close } = setup();
  const resumer = startResumer({ jobs, writes, claimTtlMs: TTL, log: createLogger('silent') });
  await until(() => scans.length === 1);
  const young = await insert(writes, new Date(Date.now() + 60_000));
  await until(() => scans.length >= 3);
  assert.equal([assetById(store, 1, young.id)!.attempts, assetById(store, 1, young.id)!.content], [1, null]);
  await close();
  await resumer.stop();
});

s('without a claim TTL (embedded): pending assets are resumed at start only', async () => {
  const { writes, jobs, scans, close } = setup();
  const before = await insert(writes, new Date(Date.now() - 60_000));
  const resumer = startResumer({ jobs, writes, claimTtlMs: null, log: createLogger('silent') });
  await until(() => assetById(store, 1, before.id)!.content !== null);
  await insert(writes, new Date(Date.now() - 60_000));
  // Time passing is the point: without a TTL no timer scans again, however long one waits.
  await sleep(500);
  assert.equal(scans, [0]);
  await close();
  await resumer.stop();
});

s.run();
