// What an insight actors query points at (one cell of an insight's result), and what each
// planner answers for it: a statement whose rows are the actors counted in that cell.
import { BREAKDOWN_OTHER, type Breakdown } from './breakdown.js';
import { truncateLocal, type Bucket, type Interval } from './dates.js';
import { QueryError } from './errors.js';
import type { Sql } from './sql.js';

export interface Cell {
  /** The series' index (trends, stickiness). */
  series: number;
  /** The point: a date (trends, lifecycle) or a number of intervals (stickiness). */
  day: string | number | null;
  breakdown: unknown;
  previous: boolean;
  /** Retention: the cohort's row. */
  interval: number | null;
  status: string | null;
  funnelStep: number | null;
  /** A funnel trends point: its entrance period's start and whether who dropped off (else who converted). */
  funnelTrends: { entrance: string | null; dropOff: boolean | null } | null;
}

/**
 * A planner's answer: rows of `actor` (the person's id or the group's key, as text) and, as
 * the kind has them, `event_count` (the events counted for the actor in the cell) and
 * `appearances` (retention: the periods after the cohort's the actor came back in, 0 first).
 */
export interface CellActors {
  sql: Sql;
  /** The actors are groups of this type (aggregation_group_type_index, math unique_group). */
  groupType: number | null;
  eventCount: boolean;
  appearances: boolean;
}

/** The bucket a cell's `day` names: a date (or date and time), read as local wall-clock time. */
export function bucketOfDay(buckets: readonly Bucket[], day: unknown, interval: Interval, weekStart: 0 | 1, attr: string): Bucket {
  const m = typeof day === 'string' ? /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(day) : null;
  if (!m) throw new QueryError('day must be a date of the insight\'s range (YYYY-MM-DD, with the time for hours)', attr);
  const local = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0));
  const start = truncateLocal(local, interval, weekStart);
  const found = buckets.find((b) => b.localMs === start);
  if (!found) throw new QueryError(`day ${String(day)} is not in the insight's date range`, attr);
  return found;
}

/**
 * A cell's breakdown value as the planners' SQL holds it: one value as text, several as
 * their JSON list, "other" as PostHog's other value. Null: no breakdown asked for.
 */
export function cellBreakdownValue(b: Breakdown | null, value: unknown, attr: string): string | null {
  if (value === null || value === undefined) return null;
  if (b === null) throw new QueryError('The insight has no breakdown', attr);
  const list = Array.isArray(value) ? value.map(String) : [String(value)];
  if (!b.multiple) {
    if (list.length !== 1) throw new QueryError('The insight breaks down by one property: give one value', attr);
    return list[0];
  }
  if (list.includes(BREAKDOWN_OTHER)) return BREAKDOWN_OTHER;
  if (list.length !== b.parts.length) throw new QueryError(`The insight breaks down by ${b.parts.length} properties: give a value for each`, attr);
  return JSON.stringify(list);
}
