// A cohort's behavioural filters (PostHog's `type: "behavioral"`) as a condition on a person
// id: the persons whose events meet it, worked out over the columnar store's events when the
// query runs. What the store can say: performed an event (at all, or in a window), performed
// it a number of times (gte, gt, lte, lt, exact), performed it for the first time in the
// window; each with event property filters. Anything else (actions, sequences, stopped or
// restarted, regularly) is refused with an error naming the field.
import { QueryError } from './errors.js';
import type { PropertyFilter } from './property-filter.js';
import { and, int, raw, sql, text, timestamp, type Sql } from './sql.js';

const SUPPORTED = new Set(['performed_event', 'performed_event_multiple', 'performed_event_first_time']);
const COUNT_OPERATORS: Record<string, string> = { gte: '>=', gt: '>', lte: '<=', lt: '<', exact: '=', eq: '=' };
// Fields that belong to the kinds refused above: given with a kind hedgerow computes, they
// would be ignored, so they are refused too.
const UNUSED = ['seq_event', 'seq_event_type', 'seq_time_value', 'seq_time_interval', 'total_periods', 'min_periods'] as const;
const INTERVAL_UNITS = new Set(['minute', 'hour', 'day', 'week', 'month', 'year']);

export interface BehaviouralFilter extends PropertyFilter {
  event_type?: unknown;
  time_value?: unknown;
  time_interval?: unknown;
  explicit_datetime?: unknown;
  operator_value?: unknown;
  event_filters?: unknown;
  negation?: unknown;
}

/** `nowMs` minus `n` units of time (months and years on the calendar, in UTC). */
export function before(nowMs: number, n: number, unit: string): number {
  const d = new Date(nowMs);
  switch (unit) {
    case 'minute': return nowMs - n * 60_000;
    case 'hour': return nowMs - n * 3_600_000;
    case 'day': return nowMs - n * 86_400_000;
    case 'week': return nowMs - n * 7 * 86_400_000;
    case 'month': d.setUTCMonth(d.getUTCMonth() - n); return d.getTime();
    default: d.setUTCFullYear(d.getUTCFullYear() - n); return d.getTime();
  }
}

const RELATIVE = /^-(\d+)([hdwmy])$/;
const RELATIVE_UNITS: Record<string, string> = { h: 'hour', d: 'day', w: 'week', m: 'month', y: 'year' };

/** Where the filter's window starts (ms), or null for all time. */
export function windowStart(f: BehaviouralFilter, nowMs: number, attr: string): number | null {
  if (f.explicit_datetime !== undefined && f.explicit_datetime !== null) {
    const given = String(f.explicit_datetime);
    const rel = RELATIVE.exec(given);
    if (rel) return before(nowMs, Number(rel[1]), RELATIVE_UNITS[rel[2]]);
    const ms = Date.parse(given);
    if (Number.isNaN(ms)) throw new QueryError(`explicit_datetime "${given}" is neither a date nor a relative date such as -30d`, `${attr}.explicit_datetime`);
    return ms;
  }
  if (f.time_value === undefined || f.time_value === null) return null;
  const n = Number(f.time_value);
  if (!Number.isSafeInteger(n) || n < 0) throw new QueryError('time_value must be a whole number of time_interval units', `${attr}.time_value`);
  const unit = String(f.time_interval ?? 'day');
  if (!INTERVAL_UNITS.has(unit)) throw new QueryError(`time_interval "${unit}" is not one of ${[...INTERVAL_UNITS].join(', ')}`, `${attr}.time_interval`);
  return before(nowMs, n, unit);
}

export interface BehaviourContext {
  projectId: number;
  nowMs: number;
  /** An event property filter over the events row `e` (planner/properties.ts filterSql). */
  eventFilter(filter: PropertyFilter, attr: string): Sql;
}

/** The person ids meeting the filter (ignoring its negation): one SELECT of `person_id`. */
export function behaviouralPersons(f: BehaviouralFilter, ctx: BehaviourContext, attr: string): Sql {
  const kind = String(f.value);
  if (!SUPPORTED.has(kind)) {
    throw new QueryError(`Cohort behavioral filters "${kind}" are not computed by hedgerow (it computes ${[...SUPPORTED].join(', ')})`, `${attr}.value`);
  }
  if ((f.event_type ?? 'events') !== 'events') {
    throw new QueryError(`Cohort behavioral filters on ${String(f.event_type)} are not computed by hedgerow: name an event`, `${attr}.event_type`);
  }
  const fields = f as unknown as Record<string, unknown>;
  for (const field of UNUSED) {
    if (fields[field] !== undefined && fields[field] !== null) {
      throw new QueryError(`${field} is not read by "${kind}" cohort filters in hedgerow`, `${attr}.${field}`);
    }
  }
  if (typeof f.key !== 'string') throw new QueryError('A behavioral cohort filter names its event in key', `${attr}.key`);
  const from = windowStart(f, ctx.nowMs, attr);
  const where: Sql[] = [sql`e.project = ${int(ctx.projectId)}`, sql`e.event = ${text(f.key)}`, sql`e.timestamp < ${timestamp(ctx.nowMs * 1000)}`];
  const filters = f.event_filters ?? [];
  if (!Array.isArray(filters)) throw new QueryError('event_filters must be a list of event property filters', `${attr}.event_filters`);
  filters.forEach((ef: PropertyFilter, i) => {
    if ((ef?.type ?? 'event') !== 'event') throw new QueryError('event_filters of cohorts take event property filters only', `${attr}.event_filters.${i}.type`);
    where.push(ctx.eventFilter(ef, `${attr}.event_filters.${i}`));
  });
  const since = from === null ? raw('TRUE') : sql`e.timestamp >= ${timestamp(from * 1000)}`;
  if (kind === 'performed_event_first_time') {
    // The first matching event of all time falls in the window.
    return sql`SELECT e.person_id FROM events e WHERE ${and(where)} GROUP BY e.person_id HAVING ${from === null ? raw('TRUE') : sql`min(e.timestamp) >= ${timestamp(from * 1000)}`}`;
  }
  where.push(since);
  if (kind === 'performed_event') return sql`SELECT DISTINCT e.person_id FROM events e WHERE ${and(where)}`;
  const op = COUNT_OPERATORS[String(f.operator ?? '')];
  if (op === undefined) throw new QueryError(`operator must be one of ${Object.keys(COUNT_OPERATORS).join(', ')} for performed_event_multiple`, `${attr}.operator`);
  const times = Number(f.operator_value);
  if (!Number.isSafeInteger(times) || times < 0) throw new QueryError('operator_value must be a whole number of times', `${attr}.operator_value`);
  // "At most n times" includes persons with none in the window: they are counted from every
  // person's events, zero when none matched.
  if (op === '<=' || op === '<' || (op === '=' && times === 0)) {
    return sql`SELECT p.id AS person_id FROM persons p LEFT JOIN (SELECT e.person_id, count(*) AS n FROM events e WHERE ${and(where)} GROUP BY e.person_id) c ON c.person_id = p.id
WHERE p.project = ${int(ctx.projectId)} AND coalesce(c.n, 0) ${raw(op)} ${int(times)}`;
  }
  return sql`SELECT e.person_id FROM events e WHERE ${and(where)} GROUP BY e.person_id HAVING count(*) ${raw(op)} ${int(times)}`;
}
