// JSON: the insight's results as PostHog's query API answers them — `results` in the
// query kind's shape, with `columns` and `types` for table queries.
import type { InsightData } from './types.js';

export function resultsToJson(insight: InsightData): Uint8Array {
  const body: Record<string, unknown> = { results: insight.result ?? null };
  if (insight.columns) body.columns = insight.columns;
  if (insight.types) body.types = insight.types;
  return Buffer.from(JSON.stringify(body), 'utf8');
}
