// Insights without a chart of their own (EventsQuery, HogQLQuery, paths, …): the first
// rows of the same table the CSV export holds, timestamps in the project's time zone.
import { queryKind } from '../query.js';
import { resultRows } from '../tabular/rows.js';
import { buildTable, type Cell } from '../tabular/table.js';
import type { InsightData } from '../types.js';
import { formatDate, wallTime } from './dates.js';
import { frame } from './frame.js';
import { drawTable, type Column } from './grid-table.js';
import { FAINT, HEIGHT, MARGIN, WIDTH, formatNumber } from './theme.js';
import type { ChartPlatform } from './platform.js';

const FONT_SIZE = 12;
const MIN_COLUMN = 70;
const MAX_COLUMN = 360;
const ROW_HEIGHT = 26;

// An instant ("…T…Z", "…+01:00") is shown as the project's clock read it, without the
// time when that is midnight (cohort and period starts).
export function displayCell(value: Cell, timeZone: string): string {
  if (value === null) return '';
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}.*(Z|[+-]\d{2}:?\d{2})$/i.test(value)) return value;
  const t = wallTime(value, timeZone);
  if (!t) return value;
  return formatDate(value, timeZone, t.hour !== 0 || t.minute !== 0 || t.second !== 0);
}

export function tableChart(insight: InsightData, p: ChartPlatform): Record<string, unknown> {
  const table = buildTable(resultRows(insight), []);
  const shownRows = Math.max(1, Math.floor((HEIGHT - 110 - 30 - 30) / ROW_HEIGHT));
  const rows = table.rows.slice(0, shownRows).map((r) => r.map((c) => displayCell(c, insight.timezone)));
  const { regular, bold } = p.fonts;
  let widths = table.header.map((title, i) => {
    let w = bold.width(title, FONT_SIZE);
    for (const r of rows) w = Math.max(w, regular.width(r[i], FONT_SIZE));
    return Math.min(MAX_COLUMN, Math.max(MIN_COLUMN, Math.ceil(w) + 18));
  });
  const room = WIDTH - 2 * MARGIN;
  // Columns beyond the width are left out; the ones kept share what is left over.
  let kept = 0;
  for (let used = 0; kept < widths.length && used + widths[kept] <= room; kept++) used += widths[kept];
  kept = Math.max(1, kept);
  widths = widths.slice(0, kept);
  const spare = room - widths.reduce((s, w) => s + w, 0);
  if (spare > 0) widths = widths.map((w) => w + Math.floor(spare / kept));
  const columns: Column[] = widths.map((width, i) => ({
    title: table.header[i], width, align: table.rows.every((r) => r[i] === null || typeof r[i] === 'number') ? 'right' : 'left',
  }));

  const kind = queryKind(insight.query) || 'Table';
  const notes = [`${table.rows.length} ${table.rows.length === 1 ? 'row' : 'rows'}`, insight.timezone];
  const f = frame(p, insight.name, [kind, ...notes].join(' · '), []);
  const graphic = drawTable(columns, rows.map((r) => r.slice(0, kept).map((text) => ({ text }))), { left: MARGIN, top: f.top, headerHeight: 30, rowHeight: ROW_HEIGHT, fontSize: FONT_SIZE });
  const hidden = [
    table.rows.length > rows.length ? `first ${rows.length} of ${table.rows.length} rows` : '',
    kept < table.header.length ? `first ${kept} of ${table.header.length} columns` : '',
  ].filter(Boolean);
  if (hidden.length > 0) {
    graphic.push({ type: 'text', left: MARGIN, top: HEIGHT - 22, style: { text: `Showing the ${hidden.join(' and the ')}; the CSV export has them all`, fontSize: 11, fill: FAINT } });
  }
  return { ...f.components, graphic };
}
