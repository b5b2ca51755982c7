// A HogQL value in a query's answer as PostHog's renderer writes it: integers as numbers (as
// text past 2⁵³), instants on their zone's wall clock (./result-time.ts), dates as their day,
// bytes as the text they are (else their hex), arrays and tuples as lists.
import type { Expr } from './hogql/expr.js';
import { instantText } from './result-time.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

// Bytes (a digest, unhex's answer) as PostHog's renderer writes them: the text they are, else their hex.
function bytesText(v: Uint8Array): string {
  try {
    return UTF8.decode(v);
  } catch {
    return Buffer.from(v).toString('hex');
  }
}

function plain(v: unknown, zone: string): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return instantText(v.getTime() * 1000, zone);
  if (v instanceof Uint8Array) return bytesText(v);
  if (Array.isArray(v)) return v.map((x) => plain(x, zone));
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).map((x) => plain(x, zone));
  return v;
}

/** `v`, as DuckDB read the value of `e`, in the answer; instants shown in `e`'s own zone, else `zone`. */
export function resultValue(v: unknown, e: Expr, zone: string): unknown {
  if (v instanceof Date && e.type === 'Date') return v.toISOString().slice(0, 10);
  return plain(v, e.zone ?? zone);
}
