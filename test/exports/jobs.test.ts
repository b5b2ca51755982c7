// Render jobs apart from the server: a render is claimed once (a second start of the same
// asset runs nothing), a render over its time limit is recorded as failed, a late outcome
// does not overwrite the recorded one, and a stopping service leaves its renders pending.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import type { Store } from '../../src/tables.js';
import { createLocalWrites } from '../../src/state/index.js';
import { COMMANDS } from '../helpers/commands.js';
import { embeddedRenderClaims } from '../helpers/cluster-handle.js';
import { finishExportCommand, insertExportCommand } from '../../src/exports/assets/commands.js';
import { assetById, type ExportRecord } from '../../src/exports/assets/asset-store.js';
import type { StoredContent } from '../../src/exports/types.js';
import { createRenderJobs, type ExportSources } from '../../src/exports/assets/jobs.js';
import type { ExportTasks, StoreTask } from '../../src/exports/index.js';
import type { TaskRunner } from '../../src/pools/index.js';
import { createLogger } from '../../src/logger.js';
import { storePerTest } from '../helpers/temp-store.js';

const s = suite('exports: render jobs');
let store: Store;
storePerTest(s, 'hedgerow-export-jobs-', (opened) => { store = opened; });

const PROJECT = { id: 1, timezone: 'Europe/Paris' } as Parameters<ExportSources['run']>[0];
const sources: ExportSources = {
  insight: () => ({ name: 'Views', query: { kind: 'TrendsQuery', series: [{ event: '$pageview' }] } }),
  dashboard: () => null,
  project: (id) => (id === 1 ? PROJECT : undefined),
  run: async () => ({ results: [{ label: '$pageview', data: [1, 2], labels: ['1 Jan', '2 Jan'], days: ['2024-01-01', '2024-01-02'] }] }),
};

// The pool's side, held by the test: each render waits until the test answers it.
function heldPool() {
  const calls: { task: StoreTask; answer(content: StoredContent): void; fail(err: Error): void }[] = [];
  const pool: TaskRunner<ExportTasks> = {
    run: ((kind: string, task: StoreTask) => new Promise<StoredContent>((resolve, reject) => {
      assert.is(kind, 'store');
      calls.push({ task, answer: resolve, fail: reject });
    })) as unknown as TaskRunner<ExportTasks>['run'],
  };
  return { pool, calls };
}

async function pendingAsset(writes: ReturnType<typeof createLocalWrites>): Promise<ExportRecord> {
  return writes.submit(insertExportCommand, {
    project_id: 1, created_by: 1, dashboard: null, insight: 7, export_format: 'text/csv', export_context: { columns: ['series'] },
    created_at: '2026-01-01T00:00:00.000Z', expires_after: '2099-01-01T00:00:00.000Z', filename: 'export-views.csv', content: null, exception: null, attempts: 1,
  });
}

const until = async (check: () => boolean) => { while (!check()) await new Promise((r) => setTimeout(r, 5)); };

function jobsWith(pool: TaskRunner<ExportTasks>, timeoutMs = 60_000) {
  const writes = createLocalWrites(store, COMMANDS);
  const jobs = createRenderJobs({
    store, writes, sources, pool, claims: embeddedRenderClaims(), dir: join(store.path, '..', 'exports'), syncMaxRows: 1, events: { rowLimit: 50_000, pageRows: 10_000 }, timeoutMs,
    log: createLogger('silent'), now: () => new Date('2026-01-02T00:00:00Z'),
  });
  return { writes, jobs };
}

s('a render gets the query\'s results, the project\'s zone and the export_context; a second start of it runs nothing', async () => {
  const { pool, calls } = heldPool();
  const { writes, jobs } = jobsWith(pool);
  const asset = await pendingAsset(writes);
  const first = jobs.start(asset);
  const second = jobs.start(asset);
  await second.done;
  await until(() => calls.length === 1);
  const { task } = calls[0];
  assert.equal([task.format, task.insight.name, task.insight.timezone, task.context], ['text/csv', 'Views', 'Europe/Paris', { columns: ['series'] }]);
  assert.equal(task.insight.result, (await sources.run(PROJECT, null)).results);
  calls[0].answer({ sha256: 'a'.repeat(64), size: 3 });
  await first.done;
  assert.equal(assetById(store, 1, asset.id)!.content, { sha256: 'a'.repeat(64), size: 3 });
  assert.is(calls.length, 1);
});

s('one result row over the limit marks the job large before it renders', async () => {
  const { pool, calls } = heldPool();
  const { writes, jobs } = jobsWith(pool);
  const job = jobs.start(await pendingAsset(writes));
  // syncMaxRows is 1 and the results have one series: not large. Two series are.
  await until(() => calls.length === 1);
  let large = false;
  void job.large.then(() => { large = true; });
  // Whether the job is large is decided before its render is sent to the pool (which has
  // happened): one turn of the event loop runs the callback above if it was.
  await new Promise((r) => setImmediate(r));
  assert.is(large, false);
  calls[0].answer({ sha256: 'b'.repeat(64), size: 1 });
  await job.done;
  const two = { ...sources, run: async () => ({ results: [{ data: [1] }, { data: [2] }] }) };
  const jobs2 = createRenderJobs({
    store, writes, sources: two, pool, claims: embeddedRenderClaims(), dir: '/nonexistent', syncMaxRows: 1, events: { rowLimit: 50_000, pageRows: 10_000 }, timeoutMs: 60_000,
    log: createLogger('silent'), now: () => new Date(),
  });
  const big = jobs2.start(await pendingAsset(writes));
  await big.large;
  await until(() => calls.length === 2);
  calls[1].answer({ sha256: 'c'.repeat(64), size: 1 });
  await big.done;
});

s('a render over its time limit fails with the reason; its late outcome is ignored', async () => {
  const { pool, calls } = heldPool();
  const { writes, jobs } = jobsWith(pool, 50);
  const asset = await pendingAsset(writes);
  await jobs.start(asset).done;
  assert.match(assetById(store, 1, asset.id)!.exception!, /^Rendering took longer than 0.05 s and was stopped\.$/);
  calls[0].answer({ sha256: 'd'.repeat(64), size: 1 });
  assert.is(await writes.submit(finishExportCommand, { project_id: 1, id: asset.id, content: { sha256: 'd'.repeat(64), size: 1 }, exception: null }), null);
  assert.is(assetById(store, 1, asset.id)!.content, null);
});

s('a failing render records its message; a render interrupted by close stays pending', async () => {
  const { pool, calls } = heldPool();
  const { writes, jobs } = jobsWith(pool);
  const failing = await pendingAsset(writes);
  const job = jobs.start(failing);
  await until(() => calls.length === 1);
  calls[0].fail(new Error('at most 16384 columns'));
  await job.done;
  assert.is(assetById(store, 1, failing.id)!.exception, 'at most 16384 columns');

  const interrupted = await pendingAsset(writes);
  const running = jobs.start(interrupted);
  await until(() => calls.length === 2);
  const closed = jobs.close();
  calls[1].fail(new Error('Terminating worker thread'));
  await closed;
  await running.done;
  const after = assetById(store, 1, interrupted.id)!;
  assert.equal([after.content, after.exception], [null, null]);
});

s.run();
