// Query results as CSV rows, the way PostHog's CSV exporter lays them out: trends (and
// lifecycle, stickiness) one row per series with a column per date label, funnels one row
// per step, retention one row per cohort with a column per period, an events query its own
// columns. The exports domain renders the same rows.
import type { FunnelStep, TimeToConvertResult } from './planner/funnels.js';
import type { RetentionRow } from './planner/retention.js';
import type { QueryResponse } from './run.js';

export interface Table {
  columns: string[];
  rows: unknown[][];
}

interface SeriesLike {
  label: string;
  data: number[];
  labels?: string[];
  breakdown_value?: unknown;
  aggregated_value?: number;
  compare_label?: string;
}

function seriesTable(items: SeriesLike[]): Table {
  const breakdown = items.some((i) => i.breakdown_value !== undefined);
  const compare = items.some((i) => i.compare_label !== undefined);
  const total = items.some((i) => i.aggregated_value !== undefined);
  const labels = total ? ['value'] : (items.find((i) => i.labels)?.labels ?? []);
  const columns = ['series', ...(breakdown ? ['breakdown_value'] : []), ...(compare ? ['compare_label'] : []), ...labels];
  const rows = items.map((i) => [
    i.label,
    ...(breakdown ? [Array.isArray(i.breakdown_value) ? i.breakdown_value.join('::') : i.breakdown_value] : []),
    ...(compare ? [i.compare_label] : []),
    ...(total ? [i.aggregated_value] : i.data),
  ]);
  return { columns, rows };
}

function funnelTable(results: FunnelStep[] | FunnelStep[][] | TimeToConvertResult): Table {
  // time_to_convert: the histogram's bins.
  if (!Array.isArray(results)) return { columns: ['bin_from_seconds', 'person_count'], rows: results.bins };
  const lists = results.length > 0 && Array.isArray(results[0]) ? (results as FunnelStep[][]) : [results as FunnelStep[]];
  const breakdown = lists.some((l) => l[0]?.breakdown_value !== undefined);
  const columns = ['name', ...(breakdown ? ['breakdown_value'] : []), 'count', 'average_conversion_time', 'median_conversion_time'];
  const rows = lists.flatMap((l) => l.map((s) => [
    s.custom_name ?? s.name,
    ...(breakdown ? [Array.isArray(s.breakdown_value) ? s.breakdown_value.join('::') : s.breakdown_value] : []),
    s.count, s.average_conversion_time, s.median_conversion_time,
  ]));
  return { columns, rows };
}

function retentionTable(results: RetentionRow[]): Table {
  const labels = results[0]?.values.map((v) => v.label) ?? [];
  return { columns: ['cohort', 'date', ...labels], rows: results.map((r) => [r.label, r.date, ...r.values.map((v) => v.count)]) };
}

export function resultTable(response: QueryResponse): Table {
  switch (response.kind) {
    case 'FunnelsQuery':
      return funnelTable(response.results as FunnelStep[] | FunnelStep[][] | TimeToConvertResult);
    case 'RetentionQuery':
      return retentionTable(response.results as RetentionRow[]);
    case 'PathsQuery': {
      // One row per edge, its fields as columns (PostHog's exporter writes a list of objects so).
      const columns = ['source', 'target', 'value', 'average_conversion_time'];
      return { columns, rows: (response.results as Record<string, unknown>[]).map((link) => columns.map((c) => link[c])) };
    }
    case 'EventsQuery':
    case 'ActorsQuery':
      return { columns: response.columns ?? [], rows: response.results as unknown[][] };
    default:
      return seriesTable(response.results as SeriesLike[]);
  }
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const s = typeof value === 'object' ? JSON.stringify(value) : String(value);
  const quoted = s.includes('"') || s.includes(',') || s.includes('\n') || s.includes('\r');
  return quoted ? `"${s.replaceAll('"', '""')}"` : s;
}

/** RFC 4180 text, CRLF line ends. */
export function toCsv(table: Table): string {
  return [table.columns, ...table.rows].map((row) => row.map(cell).join(',')).join('\r\n') + '\r\n';
}
