import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ExportContext, type InsightData } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { parseCsv } from '../helpers/csv.js';
import * as fx from './fixtures.js';

const s = suite('exports: CSV in PostHog\'s layout per query kind');

function csv(insight: InsightData, context: ExportContext | null = null): { raw: string; rows: string[][] } {
  const { contentType, bytes } = renderExport('text/csv', insight, context);
  assert.is(contentType, 'text/csv');
  const raw = Buffer.from(bytes).toString('utf8');
  return { raw, rows: parseCsv(raw) };
}

type Item = { data: number[]; labels: string[]; breakdown_value?: string; aggregated_value?: number };

s('trends with a breakdown: series, the breakdown property, then one column per date label; values equal the results', () => {
  const { raw, rows } = csv(fx.trendsByBrowser);
  const items = fx.trendsByBrowser.result as Item[];
  assert.ok(raw.endsWith('\r\n'), 'CRLF line ends');
  assert.equal(rows[0], ['series', '$browser', ...items[0].labels]);
  assert.is(rows.length, 1 + items.length);
  items.forEach((item, i) => {
    // The series is the result's label, as PostHog writes it (the breakdown value for one
    // series); the value has its own column too.
    assert.is(rows[i + 1][0], (item as unknown as { label: string }).label);
    assert.equal(rows[i + 1].slice(2).map(Number), item.data);
  });
  assert.equal(rows.slice(1).map((r) => r[1]), ['Chrome', 'Safari', 'Firefox', 'Edge', 'Other (i.e. all remaining values)']);
});

s('trends compared with the previous period: "<label> - current|previous", labelled with the current dates', () => {
  const { rows } = csv(fx.signupsCompared);
  const [current, previous] = fx.signupsCompared.result as Item[];
  assert.equal(rows[0], ['series', ...current.labels]);
  assert.equal(rows[1], ['signed_up - current', ...current.data.map(String)]);
  assert.equal(rows[2], ['signed_up - previous', ...previous.data.map(String)]);
});

s('total-value trends: one "Total Sum" per series', () => {
  const { rows } = csv(fx.countriesPie);
  assert.equal(rows[0], ['series', '$geoip_country_name', 'Total Sum']);
  assert.equal(rows[1], ['United States', 'United States', '4120']);
  assert.equal(rows[7], ['$$_posthog_breakdown_null_$$', 'None (i.e. no value)', '205']);
});

s('a breakdown compared with the previous period: "<label> - current|previous"; several series: "<event> - <value>"', () => {
  const item = (label: string, compare_label: string, data: number[]) => ({
    action: { name: '$pageview', order: 0 }, label, breakdown_value: label.split(' - ').pop(), compare: true, compare_label, data, labels: ['a', 'b'], days: ['2024-01-01', '2024-01-02'],
  });
  const insight: InsightData = {
    ...fx.trendsByBrowser,
    result: [item('Chrome', 'current', [5, 6]), item('Safari', 'current', [1, 2]), item('Chrome', 'previous', [3, 4])],
  };
  assert.equal(csv(insight).rows, [['series', '$browser', 'a', 'b'], ['Chrome - current', 'Chrome', '5', '6'], ['Safari - current', 'Safari', '1', '2'], ['Chrome - previous', 'Chrome', '3', '4']]);
  const several: InsightData = { ...fx.trendsByBrowser, result: [{ ...item('$pageview - Chrome', '', [7, 8]), compare: undefined, compare_label: undefined, breakdown_value: 'Chrome' }] };
  assert.equal(csv(several).rows[1], ['$pageview - Chrome', 'Chrome', '7', '8']);
});

s('a custom series name gets its own column', () => {
  const insight: InsightData = {
    ...fx.signupsCompared, query: { kind: 'TrendsQuery' },
    result: [{ action: { name: 'signed_up', custom_name: 'Sign-ups', order: 0 }, label: 'signed_up', data: [1, 2], labels: ['a', 'b'] }],
  };
  assert.equal(csv(insight).rows, [['series', 'custom name', 'a', 'b'], ['signed_up', 'Sign-ups', '1', '2']]);
});

s('funnel steps: name, breakdown_value, action_id, count and conversion times per step', () => {
  const { rows } = csv(fx.signupFunnel);
  assert.equal(rows[0], ['name', 'breakdown_value', 'action_id', 'count', 'median_conversion_time (seconds)', 'average_conversion_time (seconds)']);
  assert.equal(rows[1], ['$pageview', '', '$pageview', '9830', '', '']);
  assert.equal(rows[2], ['signup_started', '', 'signup_started', '2410', '1800', '3725']);
  assert.is(rows.length, 5);
});

s('funnel with a breakdown: one row per step per value, values joined with "::"', () => {
  const { rows } = csv(fx.funnelByPlan);
  assert.is(rows.length, 7);
  assert.equal(rows.slice(1).map((r) => [r[1], r[3]]), [['free', '900'], ['free', '300'], ['free', '120'], ['team', '400'], ['team', '210'], ['team', '150']]);
  const multi: InsightData = { ...fx.funnelByPlan, result: [[{ action_id: 'a', count: 3, breakdown_value: ['x', 'y'] }]] };
  assert.is(csv(multi).rows[1][1], 'x::y');
});

s('funnel time to convert: bin and value', () => {
  const { rows } = csv(fx.timeToConvert);
  assert.equal(rows.slice(0, 3), [['bin', 'value'], ['0', '120'], ['1800', '340']]);
});

s('retention: cohort, cohort size, then each period by its label; later cohorts have fewer periods', () => {
  const { rows } = csv(fx.weeklyRetention);
  const cohorts = fx.weeklyRetention.result as Array<{ date: string; values: Array<{ count: number }> }>;
  assert.equal(rows[0], ['cohort', 'cohort size', 'Week 0', 'Week 1', 'Week 2', 'Week 3', 'Week 4', 'Week 5', 'Week 6', 'Week 7']);
  cohorts.forEach((c, i) => {
    const row = rows[i + 1];
    assert.is(row[0], c.date);
    assert.is(Number(row[1]), c.values[0].count);
    assert.equal(row.slice(2, 2 + c.values.length).map(Number), c.values.map((v) => v.count));
    assert.ok(row.slice(2 + c.values.length).every((cell) => cell === ''), 'periods not reached yet are empty');
  });
});

s('lifecycle: one row per status, dormant negative', () => {
  const { rows } = csv(fx.lifecycle);
  const items = fx.lifecycle.result as Array<Item & { status: string }>;
  assert.equal(rows.slice(1).map((r) => r[0]), items.map((i) => `$pageview - ${i.status}`));
  assert.equal(rows[4].slice(1).map(Number), items[3].data);
  assert.ok(items[3].data.every((n) => n < 0));
});

s('stickiness: series then "1 day", "2 days", …', () => {
  const { rows } = csv(fx.stickiness);
  assert.equal(rows[0], ['series', '1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days']);
  assert.equal(rows[1], ['editor_opened', '520', '310', '205', '150', '110', '70', '45']);
});

s('EventsQuery: the query\'s columns, nested values flattened and grouped; formula-like text defused', () => {
  const { raw, rows } = csv(fx.eventsTable);
  assert.equal(rows[0], ['event', 'person.distinct_id', 'person.properties.email', 'properties.amount', 'properties.$browser', 'timestamp']);
  assert.equal(rows[1], ['purchase', 'ann@example.com', 'ann@example.com', '49.9', 'Chrome', '2024-05-01T23:30:00Z']);
  assert.is(rows[3][4], '\'=HYPERLINK("x")');
  assert.ok(raw.includes('"\'=HYPERLINK(""x"")"'), 'quotes doubled inside a quoted field');
});

s('export_context.columns picks and orders columns; a nested one expands, an unknown one stays empty', () => {
  const { rows } = csv(fx.eventsTable, { columns: ['timestamp', 'person', 'nope', 'event'] });
  assert.equal(rows[0], ['timestamp', 'person.distinct_id', 'person.properties.email', 'nope', 'event']);
  assert.equal(rows[2], ['2024-05-01T13:05:10Z', 'bo@example.com', 'bo@example.com', '', 'purchase']);
  const trends = csv(fx.signupsCompared, { columns: ['series', '14-Jan-2024'] }).rows;
  assert.equal(trends, [['series', '14-Jan-2024'], ['signed_up - current', '240'], ['signed_up - previous', '176']]);
});

s('long distinct_id lists in a cell are cut to 10 with a note of the total', () => {
  const ids = Array.from({ length: 12 }, (_, i) => `id${i}`);
  const insight: InsightData = { ...fx.eventsTable, columns: ['person'], types: ['Tuple'], result: [[{ distinct_ids: ids }]] };
  const { rows } = csv(insight);
  assert.equal(rows[0], ['distinct_ids.total', ...ids.slice(0, 10).map((_, i) => `person.distinct_ids.${i}`)]);
  assert.is(rows[1][0], 'Note: 12 distinct_ids in total');
});

s('no results: one explanatory row, or the requested columns over an empty row', () => {
  const empty: InsightData = { ...fx.signupFunnel, result: [] };
  assert.equal(csv(empty).rows, [['error'], ['No data available or unable to format for export.']]);
  assert.equal(csv(empty, { columns: ['a', 'b'] }).rows, [['a', 'b'], ['', '']]);
  assert.equal(csv({ ...empty, result: null }).rows[0], ['error']);
});

s('cells as Python\'s csv writes them: quoting, None empty, booleans True/False, a lone empty field quoted', () => {
  const insight: InsightData = {
    ...fx.eventsTable, columns: ['a', 'b', 'c', 'd'], types: ['String', 'String', 'Bool', 'Nullable'],
    result: [['x,y', 'line\nbreak', true, null], ['-5', '+1', false, 0]],
  };
  const { raw, rows } = csv(insight);
  assert.equal(rows[1], ['x,y', 'line\nbreak', 'True', '']);
  assert.equal(rows[2], ['\'-5', '\'+1', 'False', '0']);
  assert.ok(raw.includes('"x,y","line\nbreak",True,\r\n'));
  const lone: InsightData = { ...fx.eventsTable, columns: ['a'], types: ['String'], result: [['']] };
  assert.is(csv(lone).raw, 'a\r\n""\r\n');
});

s.run();
