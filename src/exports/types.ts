// What the renderers take and give: plain data, so they run the same in a worker thread
// as in a test.
import type { ExportFormat } from './formats.js';

export interface InsightData {
  // The insight's name (the caller falls back to its derived name).
  name: string;
  // The stored query: an InsightVizNode or DataTableNode around its source, or a bare
  // query node (TrendsQuery, FunnelsQuery, RetentionQuery, LifecycleQuery,
  // StickinessQuery, EventsQuery, HogQLQuery).
  query: unknown;
  // The query's results in PostHog's shape (the insight API's `result`).
  result: unknown;
  // Table queries (EventsQuery, HogQLQuery) name and type their row cells.
  columns?: string[] | null;
  types?: unknown[] | null;
  // The project's IANA time zone: charts show dates in it.
  timezone: string;
}

// The export's `export_context`, as the client sent it; renderers read `columns`.
export type ExportContext = Record<string, unknown>;

export interface RenderedExport {
  contentType: ExportFormat;
  bytes: Uint8Array;
}

// A stored export file: the hex SHA-256 of its bytes (its name under <data>/exports/) and its size.
export interface StoredContent {
  sha256: string;
  size: number;
}
