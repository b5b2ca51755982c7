// Reading the insight's stored query and its results as plain JSON: the insights engine
// produces them, and a saved insight may carry them from an older version, so every
// field is checked before use.

export type Json = Record<string, unknown>;

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// The query node that produced the results: the source of an InsightVizNode,
// DataTableNode or DataVisualizationNode, else the node itself.
export function sourceQuery(query: unknown): Json {
  if (!isRecord(query)) return {};
  return isRecord(query.source) ? query.source : query;
}

export function queryKind(query: unknown): string {
  const kind = sourceQuery(query).kind;
  return typeof kind === 'string' ? kind : '';
}

export function records(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

export function numbers(value: unknown): number[] {
  return Array.isArray(value) ? value.map((v) => (typeof v === 'number' && Number.isFinite(v) ? v : 0)) : [];
}

export function text(value: unknown, fallback = ''): string {
  return typeof value === 'string' ? value : value === null || value === undefined ? fallback : String(value);
}
