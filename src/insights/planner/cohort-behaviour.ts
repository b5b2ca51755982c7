// A cohort's behavioural filters (PostHog's `type: "behavioral"`) as a condition on a person
// id: the persons whose events meet it, worked out over the columnar store's events when the
// query runs. As PostHog's cohort query defines them: performed an event (at all, or in a
// window), a number of times (gte, gt, lte, lt, exact), for the first time in the window,
// stopped doing it, restarted doing it, did it regularly, did one event and then another
// within a time; each with event property filters (sequences: none). Each names an event, or
// an action (event_type "actions", key its id) whose steps the events match.
import { QueryError } from './errors.js';
import type { PropertyFilter } from './property-filter.js';
import { and, int, raw, sql, text, timestamp, type Sql } from './sql.js';

/** Per kind, the fields of PostHog's behavioural filter it reads beyond key, time and event_filters. */
const KINDS: Record<string, readonly string[]> = {
  performed_event: [],
  performed_event_multiple: ['operator', 'operator_value'],
  performed_event_first_time: [],
  stopped_performing_event: ['seq_time_value', 'seq_time_interval'],
  restarted_performing_event: ['seq_time_value', 'seq_time_interval'],
  performed_event_regularly: ['operator', 'operator_value', 'total_periods', 'min_periods'],
  performed_event_sequence: ['seq_event', 'seq_event_type', 'seq_time_value', 'seq_time_interval'],
};
const COUNT_OPERATORS: Record<string, string> = { gte: '>=', gt: '>', lte: '<=', lt: '<', exact: '=', eq: '=' };
// Fields some kind reads: given with a kind that does not, they would be ignored, so they are refused.
const KIND_FIELDS = ['seq_event', 'seq_event_type', 'seq_time_value', 'seq_time_interval', 'total_periods', 'min_periods'] as const;
const INTERVAL_UNITS = new Set(['minute', 'hour', 'day', 'week', 'month', 'year']);
/** The most periods performed_event_regularly looks back over (one condition each). */
const MAX_PERIODS = 400;

export interface BehaviouralFilter extends PropertyFilter {
  event_type?: unknown;
  time_value?: unknown;
  time_interval?: unknown;
  explicit_datetime?: unknown;
  operator_value?: unknown;
  event_filters?: unknown;
  negation?: unknown;
  seq_event?: unknown;
  seq_event_type?: unknown;
  seq_time_value?: unknown;
  seq_time_interval?: unknown;
  total_periods?: unknown;
  min_periods?: unknown;
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
  /** An action's condition over the events row `e`, by its id (an error naming attr when unknown). */
  action(id: number, attr: string): Sql;
}

/** n units of time before nowMs, n and unit read from the filter's fields (both required). */
function ago(f: BehaviouralFilter, valueField: 'time_value' | 'seq_time_value', nowMs: number, attr: string, times = 1): number {
  const intervalField = valueField === 'time_value' ? 'time_interval' : 'seq_time_interval';
  const n = Number(f[valueField]);
  if (f[valueField] === undefined || f[valueField] === null || !Number.isSafeInteger(n) || n <= 0) {
    throw new QueryError(`${valueField} must be a positive whole number of ${intervalField} units`, `${attr}.${valueField}`);
  }
  const unit = String(f[intervalField] ?? 'day');
  if (!INTERVAL_UNITS.has(unit)) throw new QueryError(`${intervalField} "${unit}" is not one of ${[...INTERVAL_UNITS].join(', ')}`, `${attr}.${intervalField}`);
  return before(nowMs, n * times, unit);
}

/** A whole number field of the filter at least `min`. */
function wholeField(f: BehaviouralFilter, field: keyof BehaviouralFilter, min: number, attr: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(f[field]);
  if (f[field] === undefined || f[field] === null || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new QueryError(`${String(field)} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`, `${attr}.${String(field)}`);
  }
  return n;
}

function countOperator(f: BehaviouralFilter, kind: string, attr: string): string {
  const op = COUNT_OPERATORS[String(f.operator ?? '')];
  if (op === undefined) throw new QueryError(`operator must be one of ${Object.keys(COUNT_OPERATORS).join(', ')} for ${kind}`, `${attr}.operator`);
  return op;
}

/** What key (or seq_event) names as a condition on the events row `e`: an event, or an action's steps by id. */
function entityOf(f: BehaviouralFilter, field: 'key' | 'seq_event', typeField: 'event_type' | 'seq_event_type', ctx: BehaviourContext, attr: string): Sql {
  const type = f[typeField] ?? 'events';
  const name = f[field];
  if (type === 'actions') {
    const id = Number(name);
    if ((typeof name !== 'string' && typeof name !== 'number') || !Number.isSafeInteger(id) || id <= 0) {
      throw new QueryError(`A behavioral cohort filter on actions names the action's id in ${field}`, `${attr}.${field}`);
    }
    return ctx.action(id, `${attr}.${field}`);
  }
  if (type !== 'events') throw new QueryError(`${typeField} must be events or actions`, `${attr}.${typeField}`);
  if (typeof name !== 'string') throw new QueryError(`A behavioral cohort filter names its event in ${field}`, `${attr}.${field}`);
  return sql`e.event = ${text(name)}`;
}

const at = (ms: number): Sql => sql`${timestamp(ms * 1000)}`;

/** The person ids meeting the filter (ignoring its negation): one SELECT of `person_id`. */
export function behaviouralPersons(f: BehaviouralFilter, ctx: BehaviourContext, attr: string): Sql {
  const kind = String(f.value);
  const reads = Object.hasOwn(KINDS, kind) ? KINDS[kind] : undefined;
  if (reads === undefined) {
    throw new QueryError(`Cohort behavioral filters "${kind}" are not computed by hedgerow (it computes ${Object.keys(KINDS).join(', ')})`, `${attr}.value`);
  }
  const entity = entityOf(f, 'key', 'event_type', ctx, attr);
  for (const field of KIND_FIELDS) {
    if (!reads.includes(field) && f[field] !== undefined && f[field] !== null) {
      throw new QueryError(`${field} is not read by "${kind}" cohort filters`, `${attr}.${field}`);
    }
  }
  const now = ctx.nowMs;
  const where: Sql[] = [sql`e.project = ${int(ctx.projectId)}`, entity, sql`e.timestamp <= ${at(now)}`];
  const filters = f.event_filters ?? [];
  if (!Array.isArray(filters)) throw new QueryError('event_filters must be a list of event property filters', `${attr}.event_filters`);
  if (kind === 'performed_event_sequence' && filters.length > 0) {
    throw new QueryError('event_filters of a sequence are not computed by hedgerow', `${attr}.event_filters`);
  }
  filters.forEach((ef: PropertyFilter, i) => {
    if ((ef?.type ?? 'event') !== 'event') throw new QueryError('event_filters of cohorts take event property filters only', `${attr}.event_filters.${i}.type`);
    where.push(ctx.eventFilter(ef, `${attr}.event_filters.${i}`));
  });
  switch (kind) {
    case 'stopped_performing_event':
    case 'restarted_performing_event': return stoppedOrRestarted(f, kind, where, now, attr);
    case 'performed_event_regularly': return regularly(f, where, now, attr);
    case 'performed_event_sequence': return sequence(f, entity, ctx, now, attr);
    default: return performed(f, kind, where, ctx, attr);
  }
}

// Performed (at all, n times, for the first time) since the window's start.
function performed(f: BehaviouralFilter, kind: string, scope: Sql[], ctx: BehaviourContext, attr: string): Sql {
  const from = windowStart(f, ctx.nowMs, attr);
  // These windows end just before now (the other kinds' periods, as PostHog's, at now).
  const where = [...scope.slice(0, 2), sql`e.timestamp < ${at(ctx.nowMs)}`, ...scope.slice(3)];
  const since = from === null ? raw('TRUE') : sql`e.timestamp >= ${at(from)}`;
  if (kind === 'performed_event_first_time') {
    // The first matching event of all time falls in the window.
    return sql`SELECT e.person_id FROM events e WHERE ${and(where)} GROUP BY e.person_id HAVING ${from === null ? raw('TRUE') : sql`min(e.timestamp) >= ${at(from)}`}`;
  }
  where.push(since);
  if (kind === 'performed_event') return sql`SELECT DISTINCT e.person_id FROM events e WHERE ${and(where)}`;
  const op = countOperator(f, kind, attr);
  const times = wholeField(f, 'operator_value', 0, attr);
  // "At most n times" includes persons with none in the window: they are counted from every
  // person's events, zero when none matched.
  if (op === '<=' || op === '<' || (op === '=' && times === 0)) {
    return sql`SELECT p.id AS person_id FROM persons p LEFT JOIN (SELECT e.person_id, count(*) AS n FROM events e WHERE ${and(where)} GROUP BY e.person_id) c ON c.person_id = p.id
WHERE p.project = ${int(ctx.projectId)} AND coalesce(c.n, 0) ${raw(op)} ${int(times)}`;
  }
  return sql`SELECT e.person_id FROM events e WHERE ${and(where)} GROUP BY e.person_id HAVING count(*) ${raw(op)} ${int(times)}`;
}

/**
 * Stopped: did it in (time ago, seq_time ago] and not since. Restarted: did it before time
 * ago, not in (time ago, seq_time ago], and again since. The seq_time window is the recent one.
 */
function stoppedOrRestarted(f: BehaviouralFilter, kind: string, where: Sql[], now: number, attr: string): Sql {
  const from = ago(f, 'time_value', now, attr);
  const recent = ago(f, 'seq_time_value', now, attr);
  if (recent <= from) throw new QueryError('seq_time_value (the recent period) must be shorter than time_value', `${attr}.seq_time_value`);
  const middle = sql`count(*) FILTER (WHERE e.timestamp > ${at(from)} AND e.timestamp <= ${at(recent)})`;
  const since = sql`count(*) FILTER (WHERE e.timestamp > ${at(recent)})`;
  if (kind === 'stopped_performing_event') {
    return sql`SELECT e.person_id FROM events e WHERE ${and([...where, sql`e.timestamp > ${at(from)}`])} GROUP BY e.person_id HAVING ${middle} > 0 AND ${since} = 0`;
  }
  return sql`SELECT e.person_id FROM events e WHERE ${and(where)} GROUP BY e.person_id
HAVING count(*) FILTER (WHERE e.timestamp <= ${at(from)}) > 0 AND ${middle} = 0 AND ${since} > 0`;
}

/**
 * Regularly: of the last total_periods periods of time_value time_interval each (the latest
 * ending now), at least min_periods in which the person did it operator operator_value times.
 */
function regularly(f: BehaviouralFilter, where: Sql[], now: number, attr: string): Sql {
  const op = countOperator(f, 'performed_event_regularly', attr);
  const times = wholeField(f, 'operator_value', 0, attr);
  const total = wholeField(f, 'total_periods', 1, attr, MAX_PERIODS);
  const min = wholeField(f, 'min_periods', 1, attr, total);
  const bounds = Array.from({ length: total + 1 }, (_, k) => (k === 0 ? now : ago(f, 'time_value', now, attr, k)));
  const periods = bounds.slice(0, total).map((end, k) =>
    sql`CASE WHEN count(*) FILTER (WHERE e.timestamp > ${at(bounds[k + 1])} AND e.timestamp <= ${at(end)}) ${raw(op)} ${int(times)} THEN 1 ELSE 0 END`);
  const sum = periods.reduce((acc, p) => sql`${acc} + ${p}`);
  return sql`SELECT e.person_id FROM events e WHERE ${and([...where, sql`e.timestamp > ${at(bounds[total])}`])} GROUP BY e.person_id HAVING ${sum} >= ${int(min)}`;
}

/**
 * Sequence: in the last time_value time_interval the person did the event and then, later
 * but within seq_time_value seq_time_interval of it, seq_event.
 */
function sequence(f: BehaviouralFilter, first: Sql, ctx: BehaviourContext, now: number, attr: string): Sql {
  const then = entityOf(f, 'seq_event', 'seq_event_type', ctx, attr);
  const from = ago(f, 'time_value', now, attr);
  // The follow-up window as an interval DuckDB adds to the first event's time (months on the calendar).
  const n = wholeField(f, 'seq_time_value', 1, attr);
  const unit = String(f.seq_time_interval ?? 'day');
  if (!INTERVAL_UNITS.has(unit)) throw new QueryError(`seq_time_interval "${unit}" is not one of ${[...INTERVAL_UNITS].join(', ')}`, `${attr}.seq_time_interval`);
  const within = sql`${raw(`to_${unit}s`)}(${int(n)})`;
  const of = (entity: Sql) => sql`SELECT e.person_id, e.timestamp FROM events e WHERE e.project = ${int(ctx.projectId)} AND ${entity} AND e.timestamp > ${at(from)} AND e.timestamp <= ${at(now)}`;
  return sql`SELECT DISTINCT a.person_id FROM (${of(first)}) a JOIN (${of(then)}) b
ON b.person_id = a.person_id AND b.timestamp > a.timestamp AND b.timestamp <= a.timestamp + ${within}`;
}
