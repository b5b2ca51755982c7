// The aggregates PostHog's maths use: sums, averages, extremes and quantiles interpolated
// between the two nearest ranks (ClickHouse's quantile over small sets).
export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
export const avg = (xs: number[]) => (xs.length ? sum(xs) / xs.length : 0);

export function quantile(xs: number[], q: number): number {
  if (!xs.length) return 0;
  const sorted = [...xs].sort((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (at - lo);
}

const QUANTILES: Record<string, number> = { median: 0.5, p75: 0.75, p90: 0.9, p95: 0.95, p99: 0.99 };

/** avg, min, max, sum, median, p75 … p99 of a list (0 for an empty one). */
export function aggregateOf(kind: string, xs: number[]): number {
  if (!xs.length) return 0;
  if (kind === 'sum') return sum(xs);
  if (kind === 'avg') return avg(xs);
  if (kind === 'min') return Math.min(...xs);
  if (kind === 'max') return Math.max(...xs);
  if (kind in QUANTILES) return quantile(xs, QUANTILES[kind]);
  throw new Error(`the model has no aggregate ${kind}`);
}
