// An export of events (export_context.source an EventsQuery, PostHog's data table export):
// up to the export row limit rather than the query API's page of 100, read a page at a
// time. A CSV is streamed: each page is appended to a spool file in the export worker and
// the file written from it (../tabular/spool.ts), so no more than a page is held. Other
// formats gather the rows (a spreadsheet or JSON file is built whole). A file cut at the
// limit says so: in the asset's export_context and, for a CSV, in a last line.
import type { Project } from '../../access/index.js';
import type { TaskRunner } from '../../pools/index.js';
import { sourceQuery, type Json } from '../query.js';
import type { ExportFormat } from '../formats.js';
import type { ExportTasks } from '../tasks.js';
import type { ExportContext, StoredContent } from '../types.js';
import { requestedColumns } from '../tabular/table.js';
import { temporaryPath } from './files.js';

export interface EventsExportLimits {
  // Most rows the file holds (HEDGEROW_EXPORT_ROW_LIMIT).
  rowLimit: number;
  // Rows per query (HEDGEROW_EXPORT_PAGE_ROWS).
  pageRows: number;
}

export interface EventsPage {
  results: unknown;
  columns?: string[] | null;
  types?: unknown[] | null;
  hasMore?: boolean;
}

export interface EventsExportInput {
  project: Project;
  name: string;
  query: unknown;
  format: ExportFormat;
  context: ExportContext | null;
  dir: string;
  pool: TaskRunner<ExportTasks>;
  limits: EventsExportLimits;
  run(project: Project, query: unknown): Promise<EventsPage>;
  // Told once the rows read pass this many (the export goes on in the background).
  large: { rows: number; reached(): void };
  now: Date;
}

export interface EventsExportOutcome {
  content: StoredContent;
  // The asset's export_context with what was cut, or null when nothing was.
  context: ExportContext | null;
}

export function isEventsExport(query: unknown): boolean {
  return sourceQuery(query).kind === 'EventsQuery';
}

export function cutNote(rows: number): string {
  return `Export truncated at ${rows.toLocaleString('en-US')} rows (the export row limit); the query matched more.`;
}

// The query each page runs: the source's range fixed at the export's start (events arriving
// meanwhile must not shift the pages), and for a plain selection an order with a tiebreak,
// so rows with equal timestamps keep their place between pages.
function stableQuery(source: Json, now: Date): Json {
  const stable: Json = { ...source, kind: 'EventsQuery' };
  if (typeof source.before !== 'string' || source.before === '') stable.before = new Date(now.getTime() + 5000).toISOString();
  const select = Array.isArray(source.select) ? source.select : [];
  const plain = select.every((s) => typeof s === 'string' && !s.includes('('));
  if (!Array.isArray(source.orderBy) && plain) stable.orderBy = ['timestamp DESC', 'uuid DESC'];
  return stable;
}

export async function exportEvents(input: EventsExportInput): Promise<EventsExportOutcome> {
  const source = sourceQuery(input.query);
  const { rowLimit, pageRows } = input.limits;
  // The query's own limit is honoured when smaller (PostHog's export limit is a ceiling).
  const own = typeof source.limit === 'number' && source.limit > 0 ? source.limit : null;
  const wanted = own === null ? rowLimit : Math.min(own, rowLimit);
  const stable = stableQuery(source, input.now);
  const csv = input.format === 'text/csv';
  const spool = csv ? temporaryPath(input.dir, 'spool') : '';
  const keys = new Set<string>();
  const gathered: unknown[] = [];
  let columns: string[] | null = null;
  let types: unknown[] | null = null;
  let offset = typeof source.offset === 'number' && source.offset > 0 ? source.offset : 0;
  let rows = 0;
  let hasMore = false;
  let told = false;
  try {
    do {
      const page = await input.run(input.project, { ...stable, limit: Math.min(pageRows, wanted - rows), offset });
      const results = Array.isArray(page.results) ? page.results.filter(Array.isArray) : [];
      columns = page.columns ?? columns;
      types = page.types ?? types;
      hasMore = page.hasMore === true && results.length > 0;
      if (csv) {
        for (const key of await input.pool.run('spool', { path: spool, results, columns })) keys.add(key);
      } else {
        for (const row of results) gathered.push(row);
      }
      rows += results.length;
      offset += results.length;
      if (!told && rows > input.large.rows) {
        told = true;
        input.large.reached();
      }
    } while (hasMore && rows < wanted);
  } catch (err) {
    if (csv) await input.pool.run('discard', { path: spool }).catch(() => undefined);
    throw err;
  }
  const cut = hasMore && rows >= rowLimit;
  const context: ExportContext | null = cut ? { ...(input.context ?? {}), truncated: true, row_limit: rowLimit, row_count: rows } : null;
  const content = csv
    ? await input.pool.run('spoolCsv', {
      dir: input.dir, path: spool, keys: [...keys], requested: requestedColumns(input.context), rows, note: cut ? cutNote(rows) : null,
    })
    : await input.pool.run('store', {
      format: input.format, dir: input.dir, context: input.context,
      insight: { name: input.name, query: input.query, result: gathered, columns, types, timezone: input.project.timezone },
    });
  return { content, context };
}
