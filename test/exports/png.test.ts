import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type InsightData } from '../../src/exports/index.js';
import { renderExport } from '../../src/exports/render.js';
import { chartOption } from '../../src/exports/chart/option.js';
import { optionToSvg } from '../../src/exports/chart/draw.js';
import { fontMetrics } from '../../src/exports/chart/fonts.js';
import { HEIGHT, WIDTH, PALETTE } from '../../src/exports/chart/theme.js';
import { registerWorld } from '../../src/exports/chart/world.js';
import { NO_VALUE, shade } from '../../src/exports/chart/world-map.js';
import { createRequire } from 'node:module';
import { decodePng, differingPixels, inked, PNG_SIGNATURE, type DecodedPng } from '../helpers/png.js';
import * as fx from './fixtures.js';

const s = suite('exports: PNG charts');

const png = (insight: InsightData) => decodePng(renderExport('image/png', insight, null).bytes);

function pixel(img: DecodedPng, x: number, y: number): number[] {
  const at = (y * img.width + x) * img.channels;
  return [...img.pixels.subarray(at, at + 3)];
}

for (const [name, insight] of Object.entries(fx.everyKind)) {
  s(`${name}: a 1200×630 PNG that decodes, with a chart on it (not blank, several colours)`, () => {
    const bytes = Buffer.from(renderExport('image/png', insight, null).bytes);
    assert.ok(bytes.subarray(0, 8).equals(PNG_SIGNATURE));
    assert.is(bytes.toString('latin1', 12, 16), 'IHDR');
    const img = decodePng(bytes);
    assert.is(img.width, 1200);
    assert.is(img.height, 630);
    assert.equal(pixel(img, 2, 2), [255, 255, 255], 'white background');
    const share = inked(img);
    assert.ok(share > 0.005 && share < 0.8, `inked share ${share}`);
    const colours = new Set<string>();
    for (let i = 0; i < img.pixels.length; i += img.channels * 97) colours.add(img.pixels.subarray(i, i + 3).join());
    assert.ok(colours.size > 8, `${colours.size} colours`);
  });
}

s('two different insights give different pixels; the same insight gives the same bytes', () => {
  const a = png(fx.trendsByBrowser);
  const fewer: InsightData = { ...fx.trendsByBrowser, result: (fx.trendsByBrowser.result as unknown[]).slice(0, 2) };
  assert.ok(differingPixels(a, png(fewer)) > 5_000);
  assert.ok(differingPixels(png(fx.lifecycle), png(fx.stickiness)) > 20_000);
  assert.ok(Buffer.from(renderExport('image/png', fx.signupFunnel, null).bytes).equals(Buffer.from(renderExport('image/png', fx.signupFunnel, null).bytes)));
});

s('text is drawn with the bundled font (no system fonts are loaded): a different title changes the title band', () => {
  const a = png(fx.signupFunnel);
  const b = png({ ...fx.signupFunnel, name: 'Another name entirely' });
  assert.ok(inked(a, 20, 50) > 0.01, 'the title is inked');
  assert.ok(differingPixels(a, b, 15, 55) > 500);
  assert.is(differingPixels(a, b, 100, 630), 0, 'nothing else moves');
});

// The x-axis labels of the SVG: [left, right] of each, measured with the bundled font.
function axisLabelSpans(svg: string): Array<[number, number]> {
  const texts = [...svg.matchAll(/<text[^>]*text-anchor="(start|middle|end)"[^>]*transform="translate\(([\d.]+) ([\d.]+)\)"[^>]*>([^<]*)<\/text>/g)];
  const rows = new Map<string, Array<{ anchor: string; x: number; text: string }>>();
  for (const [, anchor, x, y, text] of texts) {
    const list = rows.get(y) ?? [];
    list.push({ anchor, x: Number(x), text });
    rows.set(y, list);
  }
  // The axis row: the row with the most labels below the plot.
  const axis = [...rows.entries()].filter(([y]) => Number(y) > 560).sort((p, q) => q[1].length - p[1].length)[0][1];
  const { regular } = fontMetrics();
  return axis.map(({ anchor, x, text }) => {
    const w = regular.width(text, 12);
    const left = anchor === 'middle' ? x - w / 2 : anchor === 'end' ? x - w : x;
    return [left, left + w] as [number, number];
  }).sort((p, q) => p[0] - q[0]);
}

s('no overlapping x-axis labels, even with 90 daily or 48 hourly buckets', () => {
  const days = Array.from({ length: 90 }, (_, i) => new Date(Date.UTC(2024, 0, 1) + i * 86_400_000).toISOString().slice(0, 10));
  const many: InsightData = {
    ...fx.trendsByBrowser,
    result: [{ action: { name: 'a', order: 0 }, label: 'a', data: days.map((_, i) => i), labels: days, days }],
  };
  const hours = Array.from({ length: 48 }, (_, h) => `2024-06-0${3 + Math.floor(h / 24)} ${String(h % 24).padStart(2, '0')}:00:00`);
  const hourly: InsightData = { ...fx.hourlyTwoSeries, result: [{ action: { name: 'a', order: 0 }, label: 'a', data: hours.map(() => 1), labels: hours, days: hours }] };
  for (const insight of [many, hourly, fx.trendsByBrowser, fx.lifecycle]) {
    const spans = axisLabelSpans(optionToSvg(chartOption(insight)));
    assert.ok(spans.length >= 5, `${spans.length} labels drawn`);
    for (let i = 1; i < spans.length; i++) assert.ok(spans[i][0] >= spans[i - 1][1], `labels ${i - 1} and ${i} overlap`);
  }
});

s('dates are shown in the project\'s time zone: instants converted, wall-clock buckets as written', () => {
  const cohort = (date: string, timezone: string): InsightData => ({
    ...fx.weeklyRetention, timezone, result: [{ date, label: 'Week 0', values: [{ label: 'Week 0', count: 10 }] }],
  });
  // 03:00 UTC on 7 January is still 6 January in New York.
  assert.ok(optionToSvg(chartOption(cohort('2024-01-07T03:00:00Z', 'America/New_York'))).includes('>6 Jan 2024<'));
  assert.ok(optionToSvg(chartOption(cohort('2024-01-07T03:00:00Z', 'UTC'))).includes('>7 Jan 2024<'));
  assert.ok(optionToSvg(chartOption(cohort('2024-01-07T03:00:00Z', 'Asia/Tokyo'))).includes('>7 Jan 2024<'));
  // Trend buckets are already in the project's zone: the same labels whatever it is.
  const hourly = optionToSvg(chartOption(fx.hourlyTwoSeries));
  assert.ok(hourly.includes('>3 Jun 00:00<') && hourly.includes('Asia/Tokyo'));
  const table = optionToSvg(chartOption(fx.eventsTable));
  assert.ok(table.includes('>2 May 2024 09:30:00<'), 'an event at 23:30 UTC is 09:30 the next day in Sydney');
});

s('a legend that would need more than three lines names the first series and says how many', () => {
  const days = ['2024-01-01', '2024-01-02'];
  const wide: InsightData = {
    ...fx.trendsByBrowser,
    result: Array.from({ length: 40 }, (_, i) => ({ action: { name: '$pageview', order: 0 }, label: `value ${i}`, breakdown_value: `a rather long breakdown value number ${i}`, data: [i, i + 1], labels: days, days })),
  };
  const svg = optionToSvg(chartOption(wide));
  const shown = /Legend shows (\d+) of 40 series/.exec(svg);
  assert.ok(shown, 'the note is there');
  assert.ok(Number(shown[1]) >= 6 && Number(shown[1]) < 40);
});

s('a previous period is dashed in the lighter colour of its current series', () => {
  const svg = optionToSvg(chartOption({ ...fx.signupsCompared, query: { kind: 'TrendsQuery', compareFilter: { compare: true } } }));
  assert.ok(svg.includes('stroke-dasharray'), 'a dashed line');
  assert.ok(svg.includes('signed_up (previous period)'));
});

s('retention padded with zeros for periods not reached yet (hedgerow\'s engine) draws as the triangle PostHog returns', () => {
  const rows = fx.weeklyRetention.result as Array<{ date: string; label: string; values: Array<{ label: string; count: number }> }>;
  const padded: InsightData = {
    ...fx.weeklyRetention,
    result: rows.map((r) => ({ ...r, values: Array.from({ length: rows.length }, (_, p) => r.values[p] ?? { label: `Week ${p}`, count: 0 }) })),
  };
  const a = Buffer.from(renderExport('image/png', fx.weeklyRetention, null).bytes);
  assert.ok(a.equals(Buffer.from(renderExport('image/png', padded, null).bytes)));
  // A zero that was observed is still shown.
  const observedZero: InsightData = { ...fx.weeklyRetention, result: [{ ...rows[0], values: rows[0].values.map((v, p) => (p === 3 ? { ...v, count: 0 } : v)) }, ...rows.slice(1)] };
  assert.ok(optionToSvg(chartOption(observedZero)).includes('>0%<'));
});

s('each chart kind draws what it shows', () => {
  const funnel = optionToSvg(chartOption(fx.signupFunnel));
  assert.ok(funnel.includes('>9,830<') && funnel.includes('>6.2%<') && funnel.includes('6.2% overall conversion'));
  const retention = optionToSvg(chartOption(fx.weeklyRetention));
  assert.ok(retention.includes('>Week 7<') && retention.includes('>100%<') && retention.includes('>1,240<'));
  const lifecycle = optionToSvg(chartOption(fx.lifecycle));
  for (const word of ['New', 'Returning', 'Resurrecting', 'Dormant']) assert.ok(lifecycle.includes(`>${word}<`));
  assert.ok(/>-\d+</.test(lifecycle), 'a negative axis for dormant users');
  const number = optionToSvg(chartOption(fx.boldNumber));
  assert.ok(number.includes('>1,284<') && number.includes('14.4% from the previous period'));
  const pie = optionToSvg(chartOption(fx.countriesPie));
  assert.ok(pie.includes('4,120 (44.3%)'));
  const sticky = optionToSvg(chartOption(fx.stickiness));
  assert.ok(sticky.includes('>1 day<') && sticky.includes('>7 days<'));
});

// Total-value results as PostHog's (and hedgerow's) engine gives them: `aggregated_value`
// beside an empty `data` array, not `data: null` as the fixtures above.
const engineShaped = (insight: InsightData): InsightData => ({
  ...insight, result: (insight.result as Array<Record<string, unknown>>).map((item) => ({ ...item, data: [] })),
});

s('total-value displays draw their totals when results carry `data: []` (number, pie, bars by value)', () => {
  const number = optionToSvg(chartOption(engineShaped(fx.boldNumber)));
  assert.ok(number.includes('>1,284<'), 'the number is drawn');
  assert.ok(number.includes('14.4% from the previous period'));
  const pie = optionToSvg(chartOption(engineShaped(fx.countriesPie)));
  assert.ok(pie.includes('4,120 (44.3%)') && pie.includes('United States'), 'the slices are drawn and labelled');
  assert.ok((pie.match(/<path /g) ?? []).length >= 7, 'a path per slice');
  const bars = optionToSvg(chartOption(engineShaped(fx.countriesBars)));
  assert.ok(bars.includes('>4,120<') && bars.includes('>United States<') && bars.includes('>France<'), 'each bar is labelled with its value and name');
  // A line display of the same totals (no dates to draw) is drawn as totals too.
  const lineOfTotals: InsightData = { ...engineShaped(fx.countriesPie), query: { kind: 'TrendsQuery', trendsFilter: { display: 'ActionsLineGraph' } } };
  assert.ok(optionToSvg(chartOption(lineOfTotals)).includes('>4,120<'));
  // The PNG of the number is not blank where the number is (the centre of the picture).
  const img = png(engineShaped(fx.boldNumber));
  assert.ok(inked(img, 220, 330) > 0.02, 'the middle band is inked');
});

// Where a longitude and latitude land in the picture, by the ECharts layout the renderer
// draws (the same option, size and registered geometry).
function mapPixel(insight: InsightData, lonLat: [number, number]): [number, number] {
  const echarts = createRequire(import.meta.url)('echarts') as typeof import('echarts');
  registerWorld(echarts);
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: WIDTH, height: HEIGHT });
  try {
    chart.setOption({ animation: false, ...chartOption(insight) });
    const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, lonLat) as number[];
    return [Math.round(x), Math.round(y)];
  } finally {
    chart.dispose();
  }
}

const hex = (rgb: number[]) => '#' + rgb.map((c) => c.toString(16).padStart(2, '0')).join('');
const near = (a: number[], b: string) => a.every((c, i) => Math.abs(c - parseInt(b.slice(1 + 2 * i, 3 + 2 * i), 16)) <= 3);

s('a world map shades each country by its value, by alpha-2 code ($geoip_country_code); countries without one are grey', () => {
  const img = png(fx.countriesMap);
  const at = (lonLat: [number, number]) => pixel(img, ...mapPixel(fx.countriesMap, lonLat));
  // Kansas and the Mato Grosso: the largest value in the first series colour, Brazil's in its share of it.
  const us = at([-98, 39]);
  assert.ok(near(us, PALETTE[0]), `the US is ${hex(us)}, not ${PALETTE[0]}`);
  const br = at([-52, -10]);
  assert.ok(near(br, shade(2060, 4120)), `Brazil is ${hex(br)}, not ${shade(2060, 4120)}`);
  assert.not.ok(near(br, PALETTE[0]), 'a smaller value, a paler colour');
  // Siberia, central Australia and northern Canada: no value, the no-value grey.
  for (const place of [[100, 62], [134, -25], [-105, 60]] as [number, number][]) {
    const c = at(place);
    assert.ok(near(c, NO_VALUE), `${place} is ${hex(c)}, not ${NO_VALUE}`);
  }
  // The Pacific is the white page; the visitors without a country are counted, not placed.
  assert.equal(at([-140, 0]), [255, 255, 255]);
  assert.ok(optionToSvg(chartOption(fx.countriesMap)).includes('1 value not on the map'));
});

s.run();
