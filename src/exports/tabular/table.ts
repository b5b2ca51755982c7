// Rows → one table with a header, as PostHog's tabular exports lay it out: nested values
// flattened into dotted columns ("properties.$browser", "distinct_ids.0"), columns in
// first-seen order grouped by their top-level name, `export_context.columns` choosing
// and ordering them, and one explanatory row when there is nothing to show.
import { isRecord } from '../query.js';
import type { Row } from './rows.js';

export type Cell = string | number | boolean | null;

export interface Table {
  header: string[];
  rows: Cell[][];
}

const NO_DATA = 'No data available or unable to format for export.';

function flattenInto(out: Map<string, Cell>, prefix: string, value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => flattenInto(out, prefix ? `${prefix}.${i}` : String(i), item));
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) flattenInto(out, prefix ? `${prefix}.${key}` : key, item);
  } else {
    out.set(prefix, cell(value));
  }
}

function cell(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  return String(value);
}

export function flattenRow(row: Row): Map<string, Cell> {
  const out = new Map<string, Cell>();
  for (const [key, value] of row) flattenInto(out, key, value);
  return out;
}

// All keys in first-seen order, then grouped by the part before the first dot, each
// group where its first member appeared.
function groupByPrefix(keys: string[]): string[] {
  const groups = new Map<string, string[]>();
  for (const key of keys) {
    const prefix = key.split('.')[0];
    const group = groups.get(prefix);
    if (group) group.push(key);
    else groups.set(prefix, [key]);
  }
  return [...groups.values()].flat();
}

// A requested column expands to its nested columns, keeps itself where some row has it
// plain, and stays (empty) when no row has it at all.
function chooseColumns(requested: string[], discovered: string[], seen: Set<string>): string[] {
  const out: string[] = [];
  for (const col of requested) {
    const nested = discovered.filter((key) => key.startsWith(`${col}.`));
    out.push(...nested);
    if (seen.has(col) || nested.length === 0) out.push(col);
  }
  return out;
}

export function requestedColumns(context: Record<string, unknown> | null): string[] {
  const columns = context?.columns;
  return Array.isArray(columns) ? columns.filter((c): c is string => typeof c === 'string') : [];
}

export function buildTable(rows: Row[], requested: string[]): Table {
  if (rows.length === 0) {
    if (requested.length > 0) return { header: [...requested], rows: [requested.map(() => null)] };
    return { header: ['error'], rows: [[NO_DATA]] };
  }
  const flat = rows.map(flattenRow);
  const seen = new Set<string>();
  const keys: string[] = [];
  for (const row of flat) {
    for (const key of row.keys()) {
      if (!seen.has(key)) {
        seen.add(key);
        keys.push(key);
      }
    }
  }
  const header = headerOf(keys, requested);
  return { header, rows: flat.map((row) => header.map((key) => row.get(key) ?? null)) };
}

// The header of rows whose flattened keys, in first-seen order, are `keys` (unique).
export function headerOf(keys: string[], requested: string[]): string[] {
  const discovered = groupByPrefix(keys);
  return requested.length > 0 ? chooseColumns(requested, discovered, new Set(keys)) : discovered;
}

// Spreadsheets run a cell that starts with one of these as a formula: PostHog prefixes
// such strings with a quote in its CSV and XLSX files, header included.
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

export function defuseFormula<T extends Cell>(value: T): T | string {
  return typeof value === 'string' && value.length > 0 && FORMULA_TRIGGERS.has(value[0]) ? `'${value}` : value;
}
