// Retention: PostHog's cohort grid. One row per cohort (its start in the project's time
// zone and its size), one cell per period with the share of the cohort that came back,
// shaded from white (0%) to full blue (100%) on a square-root scale, so that the 10–40%
// where most retention lies is told apart. Below the grid, when there is room, the mean
// retention curve (each period over the cohorts that have reached it, weighted by size).
import { isRecord, records, text, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { formatBucket, formatDate, type Interval } from './dates.js';
import { describeDateRange } from './describe.js';
import { categoryAxis } from './axes.js';
import { frame } from './frame.js';
import { drawTable, type Column, type TableCell } from './grid-table.js';
import { FAINT, HEIGHT, MARGIN, MUTED, RULE, WIDTH, formatNumber, formatPercent, mix, textOn } from './theme.js';
import type { ChartPlatform } from './platform.js';

const PERIODS: Record<string, { interval: Interval; word: string }> = {
  Hour: { interval: 'hour', word: 'hourly' },
  Day: { interval: 'day', word: 'daily' },
  Week: { interval: 'week', word: 'weekly' },
  Month: { interval: 'month', word: 'monthly' },
};

const EMPTY = '#f3f5fb';
const FULL = '#2f5ee0';
const CURVE_MIN_HEIGHT = 170;
const MAX_ROW = 32;

// A cell's shade for the share of its cohort that came back (the browser's cohort table too).
export const retentionFill = (share: number): string => mix(EMPTY, FULL, Math.sqrt(share));

function entityName(entity: unknown): string {
  if (!isRecord(entity)) return '';
  return text(entity.custom_name) || text(entity.name) || text(entity.id) || 'any event';
}

function cohortSize(cohort: Json): number {
  const first = Array.isArray(cohort.values) ? cohort.values[0] : undefined;
  return isRecord(first) && typeof first.count === 'number' ? first.count : 0;
}

// A cohort's counts per period, null for periods that have not happened yet. Cohorts are
// consecutive periods up to the current one, so cohort i of n has seen n − i periods;
// PostHog lists only those, hedgerow's engine pads the rest with zeros.
function observed(cohort: Json, index: number, cohorts: number): (number | null)[] {
  const values = Array.isArray(cohort.values) ? cohort.values : [];
  return values.map((v, p) => {
    const count = isRecord(v) && typeof v.count === 'number' ? v.count : 0;
    return p >= cohorts - index && count === 0 ? null : count;
  });
}

function cohortLabel(cohort: Json, interval: Interval, timeZone: string): string {
  if (typeof cohort.date !== 'string') return text(cohort.label);
  if (interval === 'day' || interval === 'week') return formatDate(cohort.date, timeZone);
  return formatBucket(cohort.date, interval, timeZone);
}

export function retentionChart(insight: InsightData, p: ChartPlatform, source: Json): Record<string, unknown> {
  const cohorts = records(insight.result);
  const filter = isRecord(source.retentionFilter) ? source.retentionFilter : {};
  const period = PERIODS[text(filter.period, 'Day')] ?? PERIODS.Day;
  const target = entityName(filter.targetEntity);
  const returning = entityName(filter.returningEntity);
  const words = [
    'Retention', period.word, filter.retentionType === 'retention_recurring' ? 'recurring' : 'first time',
    target && returning ? (target === returning ? target : `${target} then ${returning}`) : '',
    describeDateRange(source.dateRange, insight.timezone), insight.timezone,
  ];
  const f = frame(p, insight.name, words.filter(Boolean).join(' · '), []);

  const periods = cohorts.reduce((n, c) => Math.max(n, Array.isArray(c.values) ? c.values.length : 0), 0);
  const widest = cohorts.find((c) => Array.isArray(c.values) && c.values.length === periods);
  const titles = Array.from({ length: periods }, (_, i) => {
    const v = widest && Array.isArray(widest.values) ? widest.values[i] : undefined;
    return isRecord(v) && typeof v.label === 'string' ? v.label : `${text(filter.period, 'Day')} ${i}`;
  });
  const fixed = 170 + 90;
  const cellWidth = Math.max(44, Math.floor((WIDTH - 2 * MARGIN - fixed) / Math.max(1, periods)));
  const columns: Column[] = [
    { title: 'Cohort', width: 170, align: 'left' },
    { title: 'Users', width: 90, align: 'right' },
    ...titles.map((title) => ({ title, width: cellWidth, align: 'center' as const })),
  ];

  const top = f.top + 4;
  const headerHeight = 30;
  const room = HEIGHT - top - headerHeight - 28;
  const rowHeight = Math.max(18, Math.min(MAX_ROW, Math.floor(room / Math.max(1, cohorts.length))));
  const capacity = Math.max(1, Math.floor(room / rowHeight));
  const shown = cohorts.slice(0, capacity);
  const rows: TableCell[][] = shown.map((c, i) => {
    const size = cohortSize(c);
    const cells: TableCell[] = [{ text: cohortLabel(c, period.interval, insight.timezone) }, { text: formatNumber(size) }];
    observed(c, i, cohorts.length).forEach((count) => {
      if (count === null || size === 0) {
        cells.push({ text: '' });
        return;
      }
      const fill = retentionFill(count / size);
      cells.push({ text: formatPercent(count / size), fill, color: textOn(fill) });
    });
    return cells;
  });
  const graphic = drawTable(columns, rows, { left: MARGIN, top, headerHeight, rowHeight, fontSize: rowHeight < 24 ? 11 : 12 });
  if (shown.length < cohorts.length) {
    graphic.push({ type: 'text', left: MARGIN, top: HEIGHT - 22, style: { text: `First ${shown.length} of ${cohorts.length} cohorts; the CSV export has them all`, fontSize: 11, fill: FAINT } });
  }
  const tableBottom = top + headerHeight + shown.length * rowHeight;
  if (HEIGHT - tableBottom < CURVE_MIN_HEIGHT || periods < 2) return { ...f.components, graphic };
  const counts = cohorts.map((c, i) => observed(c, i, cohorts.length));
  const mean = titles.map((_, p) => {
    let came = 0;
    let of = 0;
    cohorts.forEach((c, i) => {
      const count = counts[i][p];
      if (count === null || count === undefined) return;
      came += count;
      of += cohortSize(c);
    });
    return of > 0 ? (came / of) * 100 : null;
  });
  graphic.push({ type: 'text', left: MARGIN, top: tableBottom + 22, style: { text: 'Mean retention', fontSize: 12, fontWeight: 'bold', fill: MUTED } });
  return {
    ...f.components, graphic,
    // Each point under its period's column.
    grid: {
      top: tableBottom + 44, bottom: 24, containLabel: false,
      left: MARGIN + fixed + cellWidth / 2, right: WIDTH - (MARGIN + fixed + cellWidth * (periods - 0.5)),
    },
    xAxis: { ...categoryAxis(titles), boundaryGap: false, axisLabel: { show: false }, axisTick: { show: false }, axisLine: { lineStyle: { color: RULE } } },
    // The points carry their values: the axis keeps its gridlines only.
    yAxis: { type: 'value', min: 0, max: 100, interval: 50, axisLabel: { show: false }, splitLine: { lineStyle: { color: RULE } } },
    series: [{
      // Retention falls, so the line comes down into each point from the left: labels sit
      // under the points, the first one (100%) over it.
      type: 'line', data: mean.map((value, i) => ({ value, label: { position: i === 0 ? 'top' : 'bottom' } })), color: FULL, symbol: 'circle', symbolSize: 6, lineStyle: { width: 2 }, areaStyle: { opacity: 0.08 },
      label: { show: true, position: 'top', distance: 8, formatter: (p: { value: number }) => formatPercent(p.value / 100), color: MUTED, fontSize: 11 },
      emphasis: { disabled: true },
    }],
  };
}
