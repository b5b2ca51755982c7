// Retention: PostHog's cohort grid. One row per cohort (its start in the project's time
// zone and its size), one cell per period with the share of the cohort that came back,
// shaded from white (0%) to full blue (100%).
import { isRecord, records, text, type Json } from '../query.js';
import type { InsightData } from '../types.js';
import { formatBucket, formatDate, type Interval } from './dates.js';
import { describeDateRange } from './describe.js';
import { frame } from './frame.js';
import { drawTable, type Column, type TableCell } from './grid-table.js';
import { FAINT, HEIGHT, MARGIN, WIDTH, formatNumber, formatPercent, mix, textOn } from './theme.js';

const PERIODS: Record<string, { interval: Interval; word: string }> = {
  Hour: { interval: 'hour', word: 'hourly' },
  Day: { interval: 'day', word: 'daily' },
  Week: { interval: 'week', word: 'weekly' },
  Month: { interval: 'month', word: 'monthly' },
};

const EMPTY = '#f3f5fb';
const FULL = '#2f5ee0';

function entityName(entity: unknown): string {
  if (!isRecord(entity)) return '';
  return text(entity.custom_name) || text(entity.name) || text(entity.id) || 'any event';
}

function cohortLabel(cohort: Json, interval: Interval, timeZone: string): string {
  if (typeof cohort.date !== 'string') return text(cohort.label);
  if (interval === 'day' || interval === 'week') return formatDate(cohort.date, timeZone);
  return formatBucket(cohort.date, interval, timeZone);
}

export function retentionChart(insight: InsightData, source: Json): Record<string, unknown> {
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
  const f = frame(insight.name, words.filter(Boolean).join(' · '), []);

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
  const rowHeight = Math.max(18, Math.min(36, Math.floor(room / Math.max(1, cohorts.length))));
  const capacity = Math.max(1, Math.floor(room / rowHeight));
  const shown = cohorts.slice(0, capacity);
  const rows: TableCell[][] = shown.map((c) => {
    const values = Array.isArray(c.values) ? c.values.filter(isRecord) : [];
    const size = typeof values[0]?.count === 'number' ? values[0].count : 0;
    const cells: TableCell[] = [{ text: cohortLabel(c, period.interval, insight.timezone) }, { text: formatNumber(size) }];
    values.forEach((v) => {
      const count = typeof v.count === 'number' ? v.count : 0;
      const share = size > 0 ? count / size : 0;
      const fill = mix(EMPTY, FULL, share);
      cells.push({ text: formatPercent(share), fill, color: textOn(fill) });
    });
    return cells;
  });
  const graphic = drawTable(columns, rows, { left: MARGIN, top, headerHeight, rowHeight, fontSize: rowHeight < 24 ? 11 : 12 });
  if (shown.length < cohorts.length) {
    graphic.push({ type: 'text', left: MARGIN, top: HEIGHT - 22, style: { text: `First ${shown.length} of ${cohorts.length} cohorts; the CSV export has them all`, fontSize: 11, fill: FAINT } });
  }
  return { ...f.components, graphic };
}
