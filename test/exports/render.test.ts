import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/errors.js';
import { EXPORT_FORMATS, FORMAT_EXTENSIONS, parseExportFormat, type ExportTasks, type InsightData } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { formatBucket, formatDate } from '../../src/exports/chart/dates.js';
import { createWorkerPool, TaskFailedError, type WorkerPool } from '../../src/pools/index.js';
import { decodePng } from '../helpers/png.js';
import * as fx from './fixtures.js';

const s = suite('exports: formats, JSON, dates, the render worker');

s('the five formats PostHog names, with their file extensions', () => {
  assert.equal([...EXPORT_FORMATS], ['image/png', 'application/pdf', 'text/csv', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/json']);
  assert.equal(EXPORT_FORMATS.map((f) => FORMAT_EXTENSIONS[f]), ['png', 'pdf', 'csv', 'xlsx', 'json']);
  for (const f of EXPORT_FORMATS) assert.is(parseExportFormat(f), f);
});

s('an unknown format is a 400 naming the allowed values; missing and null are PostHog\'s field errors', () => {
  const caught = (value: unknown) => {
    try {
      parseExportFormat(value);
    } catch (e) {
      assert.instance(e, ApiError);
      return e as ApiError;
    }
    throw new Error('no error');
  };
  const e = caught('image/gif');
  assert.is(e.status, 400);
  assert.equal(e.body, {
    type: 'validation_error', code: 'invalid_choice', attr: 'export_format',
    detail: '"image/gif" is not a valid choice. Allowed values: image/png, application/pdf, text/csv, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/json.',
  });
  assert.is(caught(42).body.code, 'invalid_choice');
  assert.equal(caught(undefined).body, { type: 'validation_error', code: 'required', detail: 'This field is required.', attr: 'export_format' });
  assert.is(caught(null).body.code, 'null');
});

s('JSON: the results as the query API gives them, with columns and types for table queries', () => {
  const trends = JSON.parse(Buffer.from(renderExport('application/json', fx.trendsByBrowser, null).bytes).toString('utf8'));
  assert.equal(trends, { results: fx.trendsByBrowser.result });
  const events = JSON.parse(Buffer.from(renderExport('application/json', fx.eventsTable, null).bytes).toString('utf8'));
  assert.equal(events, { results: fx.eventsTable.result, columns: fx.eventsTable.columns, types: fx.eventsTable.types });
});

s('dates: wall-clock buckets as written, instants read on the project\'s clock', () => {
  assert.is(formatBucket('2024-03-05', 'day', 'Pacific/Auckland'), '5 Mar');
  assert.is(formatBucket('2024-03-05 14:00:00', 'hour', 'America/Los_Angeles'), '5 Mar 14:00');
  assert.is(formatBucket('2024-03-01', 'month', 'UTC'), 'Mar 2024');
  assert.is(formatBucket('2024-03-05T23:30:00Z', 'hour', 'Asia/Kolkata'), '6 Mar 05:00');
  assert.is(formatBucket('2024-03-05T12:00:00-08:00', 'day', 'UTC'), '5 Mar');
  assert.is(formatDate('2024-10-27T00:30:00Z', 'Europe/London', true), '27 Oct 2024 01:30:00');
  assert.is(formatDate('2024-10-27T01:30:00Z', 'Europe/London', true), '27 Oct 2024 01:30:00', 'after the clocks go back');
  assert.is(formatDate('2024-01-01T00:00:00Z', 'Not/AZone', true), '1 Jan 2024 00:00:00', 'an unknown zone reads as UTC');
  assert.is(formatBucket('not a date', 'day', 'UTC'), 'not a date');
});

s('rendering runs in the export worker pool; a render that fails fails that task alone, with its reason', async () => {
  const pool: WorkerPool<ExportTasks> = createWorkerPool<ExportTasks>({
    worker: new URL('../../workers/exports.js', import.meta.url), threads: 1, workerData: undefined,
  });
  try {
    const csv = pool.run('render', { format: 'text/csv', insight: fx.signupFunnel, context: null });
    const png = pool.run('render', { format: 'image/png', insight: fx.weeklyRetention, context: null });
    const tooWide: InsightData = { ...fx.eventsTable, columns: Array.from({ length: 16_385 }, (_, i) => `c${i}`), types: ['Int'], result: [Array.from({ length: 16_385 }, () => 1)] };
    const failed = pool.run('render', { format: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', insight: tooWide, context: null });
    assert.is((await csv).contentType, 'text/csv');
    assert.ok(Buffer.from((await csv).bytes).toString('utf8').startsWith('name,breakdown_value,action_id,count'));
    assert.is(decodePng((await png).bytes).width, 1200);
    try {
      await failed;
      assert.unreachable('the render should fail');
    } catch (e) {
      assert.instance(e, TaskFailedError);
      assert.match((e as Error).message, /at most 16384 columns/);
    }
  } finally {
    await pool.close();
  }
});

s.run();
