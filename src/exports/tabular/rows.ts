// An insight's results as the rows of PostHog's CSV and XLSX exports (its csv_exporter:
// the result's shape, not the query kind, picks the layout). Each row is an ordered map
// from column name to value; ./table.ts flattens nested values and orders the columns.
import { isRecord, sourceQuery, type Json } from '../query.js';
import type { InsightData } from '../types.js';

export type Row = Map<string, unknown>;

// PostHog's markers for the "other values" and "no value" breakdown buckets, and the
// words its exports print for them.
const BREAKDOWN_OTHER = '$$_posthog_breakdown_other_$$';
const BREAKDOWN_NULL = '$$_posthog_breakdown_null_$$';
const BREAKDOWN_OTHER_DISPLAY = 'Other (i.e. all remaining values)';
const BREAKDOWN_NULL_DISPLAY = 'None (i.e. no value)';

// Lists longer than this in a table cell (a person's distinct_ids) are cut, with a note.
const LIST_LIMIT_KEYS = new Set(['distinct_ids']);
const LIST_LIMIT = 10;

// Python's str() of a scalar, which PostHog's exporter applies to breakdown values.
export function pyStr(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (value === null || value === undefined) return 'None';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function resultRows(insight: InsightData): Row[] {
  const { result } = insight;
  if (Array.isArray(result) && Array.isArray(result[0]) && Array.isArray(insight.types) && insight.types.length > 0) {
    return tableRows(result as unknown[][], insight.columns ?? null);
  }
  if (isRecord(result)) return binRows(result);
  if (!Array.isArray(result) || result.length === 0 || !result[0]) return [];
  const first = result[0] as unknown;
  if (Array.isArray(first) || (isRecord(first) && first.action_id)) return funnelRows(result);
  if (!isRecord(first)) return result.map((value) => new Map([['', value]]));
  if (Array.isArray(first.values) && first.values.length > 0 && first.label) return retentionRows(result);
  if (Array.isArray(first.data) || (first.data == null && 'aggregated_value' in first)) {
    return trendRows(result, sourceQuery(insight.query).breakdownFilter);
  }
  // Any other list of objects: one row each (paths, stickiness tables, …).
  return result.map((item) => new Map(isRecord(item) ? Object.entries(item) : [['', item]]));
}

// EventsQuery / HogQLQuery: one row per result row, cells named by `columns`.
export function tableRows(results: unknown[][], columns: string[] | null): Row[] {
  return results.map((cells) => {
    const row: Row = new Map();
    cells.forEach((cell, i) => {
      let value = cell;
      if (isRecord(cell)) {
        const cut: Json = { ...cell };
        for (const key of Object.keys(cut)) {
          const list = cut[key];
          if (LIST_LIMIT_KEYS.has(key) && Array.isArray(list) && list.length > LIST_LIMIT) {
            cut[key] = list.slice(0, LIST_LIMIT);
            row.set(`${key}.total`, `Note: ${list.length} ${key} in total`);
          }
        }
        value = cut;
      }
      row.set(columns && columns.length > 0 ? String(columns[i]) : `column_${i}`, value);
    });
    return row;
  });
}

// Funnel time-to-convert: {bins: [[seconds, persons], …]}.
function binRows(result: Json): Row[] {
  if (!Array.isArray(result.bins)) return [];
  return result.bins
    .filter((bin): bin is unknown[] => Array.isArray(bin) && bin.length >= 2)
    .map((bin) => new Map([['bin', bin[0]], ['value', bin[1]]]));
}

// Funnel steps: a list of steps, or one list per breakdown value.
function funnelRows(result: unknown[]): Row[] {
  const groups = Array.isArray(result[0]) ? result : [result];
  const rows: Row[] = [];
  for (const steps of groups) {
    if (!Array.isArray(steps)) continue;
    for (const step of steps) {
      if (!isRecord(step)) continue;
      const field = (key: string) => (key in step ? step[key] : '');
      rows.push(new Map<string, unknown>([
        ['name', step.custom_name || field('action_id')],
        ['breakdown_value', breakdownJoined(step.breakdown_value)],
        ['action_id', field('action_id')],
        ['count', field('count')],
        ['median_conversion_time (seconds)', field('median_conversion_time')],
        ['average_conversion_time (seconds)', field('average_conversion_time')],
      ]));
    }
  }
  return rows;
}

// PostHog joins a funnel step's breakdown values with "::". (It would also split a plain
// string into its characters; a string is kept whole here.)
function breakdownJoined(value: unknown): string {
  if (value === null || value === undefined) return '';
  return Array.isArray(value) ? value.map(pyStr).join('::') : pyStr(value);
}

// Retention: one row per cohort, its size, then one column per period.
function retentionRows(result: unknown[]): Row[] {
  const rows: Row[] = [];
  for (const cohort of result) {
    if (!isRecord(cohort)) continue;
    const values = Array.isArray(cohort.values) ? cohort.values.filter(isRecord) : [];
    const size = values.length > 0 ? values[0].count : 0;
    const dated = Boolean(cohort.date);
    const row: Row = new Map([['cohort', dated ? cohort.date : cohort.label], ['cohort size', size]]);
    values.forEach((v, i) => {
      row.set(dated && typeof v.label === 'string' ? v.label : `Period ${i}`, v.count);
    });
    rows.push(row);
  }
  return rows;
}

interface BreakdownColumn {
  property: unknown;
}

function breakdownColumns(filter: unknown): BreakdownColumn[] {
  if (!isRecord(filter)) return [];
  if (Array.isArray(filter.breakdowns) && filter.breakdowns.length > 0) {
    return filter.breakdowns.map((b) => ({ property: isRecord(b) ? b.property : undefined }));
  }
  return 'breakdown' in filter ? [{ property: filter.breakdown }] : [];
}

// Trends, lifecycle, stickiness: one row per series (× breakdown value × compare period);
// `series`, `custom name`, one column per breakdown property, then one column per date
// label — or `Total Sum` for the total-value displays.
function trendRows(result: unknown[], breakdownFilter: unknown): Row[] {
  const items = result.filter(isRecord);
  const comparing = Boolean(items[0]?.compare_label);
  // Previous-period series are labelled with the current period's dates.
  const current = items.find((item) => item.compare_label === 'current');
  const columns = breakdownColumns(breakdownFilter);
  return items.map((item, index) => {
    const action = isRecord(item.action) ? item.action : null;
    // The result's label, as PostHog writes it: the breakdown value for one series
    // ("Chrome"), "<event> - <value>" for several.
    let series = 'label' in item ? item.label : `Series #${index + 1}`;
    if (item.compare_label) series = `${pyStr(series)} - ${pyStr(item.compare_label)}`;
    const row: Row = new Map([['series', series]]);
    if (action?.custom_name) row.set('custom name', action.custom_name);
    if ('breakdown_value' in item) {
      const values = Array.isArray(item.breakdown_value) ? item.breakdown_value : [item.breakdown_value];
      values.forEach((value, i) => {
        const property = columns[i]?.property;
        if (!property) return;
        const name = Array.isArray(property) ? property.map(pyStr).join(', ') : pyStr(property);
        row.set(name, breakdownDisplay(value));
      });
    }
    if (item.aggregated_value !== null && item.aggregated_value !== undefined) {
      row.set('Total Sum', item.aggregated_value);
    } else if (Array.isArray(item.data)) {
      const labelled = comparing ? current : item;
      const labels = labelled && Array.isArray(labelled.labels) ? labelled.labels : [];
      item.data.forEach((value, i) => {
        if (i < labels.length) row.set(pyStr(labels[i]), value);
      });
    }
    return row;
  });
}

export function breakdownDisplay(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s = pyStr(value);
  return s === BREAKDOWN_OTHER ? BREAKDOWN_OTHER_DISPLAY : s === BREAKDOWN_NULL ? BREAKDOWN_NULL_DISPLAY : s;
}
