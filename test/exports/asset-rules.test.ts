import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defaultExpiresAfter, exportFilename, slugify } from '../../src/exports/index.js';

const s = suite('exports: file names and expiry, PostHog\'s rules');

const at = new Date('2024-06-15T10:30:05Z');

s('slugify as Django does it', () => {
  assert.is(slugify('Pageviews by browser'), 'pageviews-by-browser');
  assert.is(slugify('  Crème brûlée — 100% & more!  '), 'creme-brulee-100-more');
  assert.is(slugify('__already-slugged__'), 'already-slugged');
  assert.is(slugify('日本語'), '');
  assert.is(slugify('a_b  c--d'), 'a_b-c-d');
});

s('export-<insight name>-<created, UTC>.<extension>', () => {
  assert.is(exportFilename({ format: 'image/png', hasInsight: true, insightName: 'Sign-up funnel', createdAt: at }), 'export-sign-up-funnel-2024-06-15-103005.png');
  assert.is(exportFilename({ format: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', hasInsight: true, insightName: '', createdAt: at }), 'export-insight-2024-06-15-103005.xlsx');
  assert.is(exportFilename({ format: 'text/csv', contextFilename: 'My Report', hasInsight: true, insightName: 'x', createdAt: at }), 'my-report-2024-06-15-103005.csv');
  assert.is(exportFilename({ format: 'application/pdf', dashboardName: 'Team KPIs', createdAt: at }), 'export-team-kpis-2024-06-15-103005.pdf');
  assert.is(exportFilename({ format: 'application/json', createdAt: at }), 'export-2024-06-15-103005.json');
});

s('CSV and XLSX expire after 7 days, other formats after 180, at the start of that day (UTC)', () => {
  assert.is(defaultExpiresAfter('text/csv', at).toISOString(), '2024-06-22T00:00:00.000Z');
  assert.is(defaultExpiresAfter('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', at).toISOString(), '2024-06-22T00:00:00.000Z');
  assert.is(defaultExpiresAfter('image/png', at).toISOString(), '2024-12-12T00:00:00.000Z');
  assert.is(defaultExpiresAfter('application/pdf', new Date('2024-06-15T23:59:59Z')).toISOString(), '2024-12-12T00:00:00.000Z');
});

s.run();
