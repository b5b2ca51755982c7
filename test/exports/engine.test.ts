// The renderers fed by the insights engine itself: events loaded into a columnar store,
// each query kind run, its response rendered in every format. Guards the contract between
// the two domains (result shapes, date strings, padding) beyond the hand-made fixtures.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EXPORT_FORMATS, type InsightData } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { chartOption } from '../../src/exports/chart/option.js';
import { optionToSvg } from '../../src/exports/chart/draw.js';
import type { FunnelStep, RetentionRow, TrendsItem } from '../../src/insights/index.js';
import { parseCsv } from '../helpers/csv.js';
import { decodePng } from '../helpers/png.js';
import { readPdf } from '../helpers/pdf.js';
import { unzip } from '../helpers/unzip.js';
import { ev, openTestStore, run, type TestStore } from '../insights/helpers.js';

const NOW = '2024-06-15T12:00:00Z';
const TZ = 'America/New_York';
const s = suite('exports: rendering the insights engine\'s results');
let store: TestStore;

s.before(async () => {
  store = await openTestStore();
  const browsers = ['Chrome', 'Safari', 'Firefox'];
  const events = [];
  for (let n = 1; n <= 12; n++) {
    for (let d = 8; d <= 15; d++) {
      if ((n + d) % 3 === 0) continue;
      const day = String(d).padStart(2, '0');
      events.push(ev(n, '$pageview', `2024-06-${day}T1${n % 10}:00:00Z`, { $browser: browsers[n % 3] }));
      if (n % 2 === 0) events.push(ev(n, 'signed_up', `2024-06-${day}T1${n % 10}:30:00Z`, { plan: n % 4 === 0 ? 'team' : 'free' }));
      if (n % 4 === 0) events.push(ev(n, 'upgraded', `2024-06-${day}T1${n % 10}:45:00Z`));
    }
  }
  await store.loader.load({ events });
});
s.after(() => store.close());

async function insight(name: string, query: Record<string, unknown>): Promise<InsightData> {
  const viz = query.kind === 'EventsQuery' ? { kind: 'DataTableNode', source: query } : { kind: 'InsightVizNode', source: query };
  const response = await run(store, viz, { now: NOW, timezone: TZ });
  return { name, query: viz, result: response.results, columns: response.columns ?? null, types: response.types ?? null, timezone: TZ };
}

const csv = (i: InsightData) => parseCsv(Buffer.from(renderExport('text/csv', i, null).bytes).toString('utf8'));

function everyFormatOpens(i: InsightData): void {
  for (const format of EXPORT_FORMATS) {
    const { bytes } = renderExport(format, i, null);
    if (format === 'image/png') assert.is(decodePng(bytes).width, 1200);
    else if (format === 'application/pdf') assert.ok(readPdf(bytes).pages.length >= 1);
    else if (format === 'text/csv') assert.ok(csv(i).length > 1);
    else if (format === 'application/json') assert.equal(JSON.parse(Buffer.from(bytes).toString('utf8')).results, i.result);
    else assert.ok(unzip(bytes).has('xl/worksheets/sheet1.xml'));
  }
}

s('trends by browser: CSV rows equal the engine\'s series; the chart labels its days', async () => {
  const i = await insight('Pageviews by browser', {
    kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }],
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
  });
  const items = i.result as TrendsItem[];
  assert.ok(items.length === 3);
  const rows = csv(i);
  assert.equal(rows[0], ['series', '$browser', ...items[0].labels!]);
  items.forEach((item, k) => {
    // The series is the result's label as PostHog writes it: the breakdown value.
    assert.equal(rows[k + 1].slice(0, 2), [item.label, String(item.breakdown_value)]);
    assert.is(item.label, String(item.breakdown_value));
    assert.equal(rows[k + 1].slice(2).map(Number), item.data);
  });
  assert.ok(optionToSvg(chartOption(i)).includes('>15 Jun<'));
  everyFormatOpens(i);
});

s('funnel: one CSV row per step with the engine\'s counts', async () => {
  const i = await insight('Sign-up funnel', {
    kind: 'FunnelsQuery', dateRange: { date_from: '-14d' },
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }, { kind: 'EventsNode', event: 'upgraded' }],
  });
  const steps = i.result as FunnelStep[];
  assert.equal(csv(i).slice(1).map((r) => [r[0], Number(r[3])]), steps.map((st) => [st.action_id, st.count]));
  assert.ok(steps[0].count > steps[2].count && steps[2].count > 0);
  everyFormatOpens(i);
});

s('retention: cohorts dated in the project\'s zone; periods not reached yet stay empty on the chart', async () => {
  const i = await insight('Daily retention', {
    kind: 'RetentionQuery', dateRange: { date_to: '2024-06-15' },
    retentionFilter: { period: 'Day', totalIntervals: 5, retentionType: 'retention_recurring', targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } },
  });
  const cohorts = i.result as RetentionRow[];
  const rows = csv(i);
  assert.equal(rows[0], ['cohort', 'cohort size', 'Day 0', 'Day 1', 'Day 2', 'Day 3', 'Day 4']);
  cohorts.forEach((c, k) => assert.equal(rows[k + 1].slice(2).map(Number), c.values.map((v) => v.count)));
  const svg = optionToSvg(chartOption(i));
  assert.ok(svg.includes('>11 Jun 2024<') && svg.includes('>15 Jun 2024<'));
  // The last cohort has seen one period: one percentage cell in its row, not five.
  const lastRow = cohorts.length - 1;
  assert.is(cohorts[lastRow].values.slice(1).every((v) => v.count === 0), true);
  everyFormatOpens(i);
});

s('lifecycle and stickiness: trend-shaped rows, every format', async () => {
  const lifecycle = await insight('Lifecycle', { kind: 'LifecycleQuery', interval: 'day', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }] });
  assert.equal(csv(lifecycle).slice(1).map((r) => r[0]).sort(), ['$pageview - dormant', '$pageview - new', '$pageview - resurrecting', '$pageview - returning']);
  everyFormatOpens(lifecycle);
  const sticky = await insight('Stickiness', { kind: 'StickinessQuery', interval: 'day', dateRange: { date_from: '-7d' }, series: [{ kind: 'EventsNode', event: '$pageview' }] });
  assert.equal(csv(sticky)[0].slice(0, 3), ['series', '1 day', '2 days']);
  everyFormatOpens(sticky);
});

s('events query: the columns the query selected, timestamps shown in the project\'s zone', async () => {
  const i = await insight('Recent sign-ups', { kind: 'EventsQuery', select: ['event', 'properties.plan', 'timestamp'], event: 'signed_up', orderBy: ['timestamp DESC'], limit: 5 });
  const rows = csv(i);
  assert.equal(rows[0], ['event', 'properties.plan', 'timestamp']);
  assert.is(rows.length, 6);
  assert.ok(rows.slice(1).every((r) => r[0] === 'signed_up'));
  everyFormatOpens(i);
});

s.run();
