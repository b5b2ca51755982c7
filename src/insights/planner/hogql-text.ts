// What an insight computed, written as HogQL: PostHog answers each insight query with the
// HogQL of the query that produced it (its `hogql` field; the series' SELECTs joined by
// UNION ALL). Here the trends, stickiness, lifecycle, retention and funnel planners' statements as HogQL text, with hedgerow's semantics
// (property filters match as the flag evaluator matches, case-insensitively; value-set
// operators as the values they resolved to), so the text run as a HogQLQuery gives the
// series' numbers per interval and breakdown value, values past a trends, retention or
// funnel breakdown's limit folded into "other" as the planner folds them. Pure.
import { COHORT_FILTER_TYPES, compileSafeRegex, isBooleanish, isTruthy, numberRepresentation, stringRepresentation } from '../../matching/index.js';
import type { SeriesNode } from '../schemas.js';
import { BREAKDOWN_NULL, BREAKDOWN_OTHER, type Breakdown, type BreakdownPart } from './breakdown.js';
import type { Interval } from './dates.js';
import { cohortIdOf, groupTypeIndexOf, leaves, valueSetKey, type Properties, type PropertyFilter, type PropertyGroup, type ValueSets } from './properties.js';

// What this text does not say yet (a cohort breakdown past its limit): an insight that has
// one answers no hogql text rather than a wrong one.
class Unwritable extends Error {}

/** The text `write` makes, or undefined when the insight has something HogQL cannot say here. */
export function writtenOrNone(write: () => string | undefined): string | undefined {
  try {
    return write();
  } catch (err) {
    if (err instanceof Unwritable) return undefined;
    throw err;
  }
}

/** What a series reads: its event name (null: every event), or its action (matchesAction). */
export type SeriesEvent = string | null | { action: number };

export function seriesEvent(node: SeriesNode): SeriesEvent {
  if (node.kind === 'ActionsNode') return { action: Number(node.id) };
  return node.event ?? null;
}

/** A HogQL string literal: quotes and backslashes escaped, as PostHog's printer escapes them. */
export function literal(value: string): string {
  return `'${value.replace(/[\\'\n\r\t\0]/g, (c) => ({ '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\t': '\\t', '\0': '\\0' })[c]!)}'`;
}

/** An instant as an ISO text, to the microsecond when it has them (an explicit range ends a microsecond past its last instant). */
export function iso(us: number): string {
  const text = new Date(Math.floor(us / 1000)).toISOString();
  const micros = ((us % 1000) + 1000) % 1000;
  return micros === 0 ? text : `${text.slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
}

// A group's property: the event's group of that type (PostHog's group_N join on $group_N).
// Read as text, as the insights' own plans read it, whatever type HogQL would give it
// (PostHog's texts wrap it in toString too).
function propertyField(source: 'event' | 'person' | number, key: string): string {
  const owner = typeof source === 'number' ? `group_${source}.` : source === 'person' ? 'person.' : '';
  return `toString(${owner}properties[${literal(key)}])`;
}

function exactTest(x: string, value: unknown): string {
  if (isBooleanish(value)) return `(lower(${x}) = 'true') = ${isTruthy(value) ? 'true' : 'false'}`;
  if (Array.isArray(value)) return `lower(${x}) IN (${value.map((v) => literal(stringRepresentation(v).toLowerCase())).join(', ')})`;
  return `lower(${x}) = ${literal(stringRepresentation(value).toLowerCase())}`;
}

const polarized = (x: string, test: string, negative: boolean) => (negative ? `(${x} IS NULL OR NOT (${test}))` : `(${x} IS NOT NULL AND (${test}))`);
const contains = (x: string, v: unknown) => `positionCaseInsensitive(${x}, ${literal(stringRepresentation(v))}) > 0`;

/** One filter as HogQL (filters the planner refuses are refused before this runs). */
function filterText(f: PropertyFilter, valueSets: ValueSets): string {
  if (f.type === 'hogql') return `(${f.key})`;
  if (COHORT_FILTER_TYPES.has(f.type ?? '')) {
    // The event's person among the cohort's members, turned around as the planner turns it.
    const member = `coalesce(person_id IN COHORT ${cohortIdOf(f, 'properties')}, false)`;
    return f.operator === 'not_in' || (f as { negation?: unknown }).negation === true ? `(NOT ${member})` : member;
  }
  const x = propertyField(f.type === 'group' ? groupTypeIndexOf(f, 'properties') : f.type === 'person' ? 'person' : 'event', f.key);
  const operator = f.operator ?? 'exact';
  if (operator === 'is_set') return `${x} IS NOT NULL`;
  if (operator === 'is_not_set') return `${x} IS NULL`;
  const value = f.value;
  if (value === null || value === undefined) return 'false';
  const resolved = valueSets.get(valueSetKey(f));
  if (resolved !== undefined) return resolved.length === 0 ? 'false' : `(${x} IS NOT NULL AND ${x} IN (${resolved.map(literal).join(', ')}))`;
  const text = (v: unknown) => literal(stringRepresentation(v).toLowerCase());
  switch (operator) {
    case 'exact': return polarized(x, exactTest(x, value), false);
    case 'is_not': return polarized(x, exactTest(x, value), true);
    case 'icontains': return polarized(x, contains(x, value), false);
    case 'not_icontains': return polarized(x, contains(x, value), true);
    case 'icontains_multi':
    case 'not_icontains_multi':
      return polarized(x, (Array.isArray(value) ? value : [value]).map((v) => contains(x, v)).join(' OR ') || 'false', operator === 'not_icontains_multi');
    case 'starts_with':
    case 'not_starts_with': return polarized(x, `startsWith(lower(${x}), ${text(value)})`, operator === 'not_starts_with');
    case 'ends_with':
    case 'not_ends_with': return polarized(x, `endsWith(lower(${x}), ${text(value)})`, operator === 'not_ends_with');
    case 'regex':
    case 'not_regex': {
      const pattern = stringRepresentation(value);
      const negative = operator === 'not_regex';
      if (compileSafeRegex(pattern) === undefined) return negative ? `${x} IS NULL` : 'false';
      return polarized(x, `match(${x}, ${literal(pattern)})`, negative);
    }
    case 'gt': case 'gte': case 'lt': case 'lte': {
      const bound = numberRepresentation(value);
      if (bound === undefined || Number.isNaN(bound)) return 'false';
      return `toFloat(${x}) ${{ gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator]} ${bound}`;
    }
    case 'between':
    case 'not_between': {
      const negative = operator === 'not_between';
      const [low, high] = Array.isArray(value) && value.length === 2 ? value.map(numberRepresentation) : [undefined, undefined];
      if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high) return negative ? `${x} IS NULL` : 'false';
      const within = `toFloat(${x}) BETWEEN ${low} AND ${high}`;
      return negative ? `(${x} IS NULL OR (toFloat(${x}) IS NOT NULL AND NOT (${within})))` : `(${within})`;
    }
    default: return 'false';
  }
}

/** A properties value (list ANDed, or nested groups) as one HogQL condition. */
export function propertiesText(properties: Properties, valueSets: ValueSets): string {
  if (properties === null || properties === undefined) return 'true';
  const walk = (item: PropertyFilter | PropertyGroup): string => {
    if (Array.isArray((item as PropertyGroup).values)) {
      const parts = (item as PropertyGroup).values.map(walk);
      return parts.length === 0 ? ((item as PropertyGroup).type === 'OR' ? 'false' : 'true') : `(${parts.join((item as PropertyGroup).type === 'OR' ? ' OR ' : ' AND ')})`;
    }
    return filterText(item as PropertyFilter, valueSets);
  };
  const list = Array.isArray(properties) ? properties : [properties];
  return list.length === 0 ? 'true' : list.length === 1 ? walk(list[0]) : `(${list.map(walk).join(' AND ')})`;
}

const hasFilters = (p: unknown) => p !== null && p !== undefined && leaves(p as Properties).length > 0;

// A part's value as it is (NULL when absent).
function partValue(p: BreakdownPart): string {
  if (p.source === 'cohort') throw new Unwritable();
  if (p.source === 'group') return propertyField(p.groupIndex!, p.key);
  return p.source === 'hogql' ? `toString(${p.key})` : propertyField(p.source, p.key);
}

function partText(p: BreakdownPart): string {
  const x = partValue(p);
  const value = p.normalizeUrl ? `if(replaceRegexpOne(${x}, '[/?#]+$', '') = '', '/', replaceRegexpOne(${x}, '[/?#]+$', ''))` : x;
  return `coalesce(${value}, ${literal(BREAKDOWN_NULL)})`;
}

/** A breakdown's value as HogQL (several: a list of them). */
export function breakdownText(b: Breakdown): string {
  return b.multiple ? `[${b.parts.map(partText).join(', ')}]` : partText(b);
}

const BUCKETS: Record<Interval, (weekStart: 0 | 1) => string> = {
  hour: () => 'toStartOfHour(timestamp)',
  day: () => 'toStartOfDay(timestamp)',
  week: (weekStart) => `toStartOfWeek(timestamp, ${weekStart})`,
  month: () => 'toStartOfMonth(timestamp)',
};

/** The events a series (one period) reads: its range, event and property filters. */
export interface EventsText {
  event: SeriesEvent | undefined;
  /** Property lists the series' events must match (the query's and the node's). */
  properties: unknown[];
  fromUs: number;
  toUs: number;
  valueSets: ValueSets;
}

export interface SeriesText extends EventsText {
  /** The series' aggregate as HogQL. */
  aggregate: string;
  /** Null: one total over the range. */
  interval: Interval | null;
  weekStart: 0 | 1;
  breakdown: Breakdown | null;
  /** A cohort breakdown's one value ('all' or a cohort's id): PostHog's query per cohort, over its persons' events. */
  cohort?: string;
}

/** A series' own condition: its event or action, and its property lists. */
function seriesCondition(event: SeriesEvent | undefined, properties: unknown[], valueSets: ValueSets): string[] {
  const where: string[] = [];
  if (typeof event === 'string') where.push(`event = ${literal(event)}`);
  else if (event !== null && event !== undefined) where.push(`matchesAction(${event.action})`);
  for (const p of properties) if (hasFilters(p)) where.push(propertiesText(p as Properties, valueSets));
  return where;
}

function eventsWhere(s: EventsText): string {
  const where = [`timestamp >= toDateTime(${literal(iso(s.fromUs))})`, `timestamp < toDateTime(${literal(iso(s.toUs))})`];
  return [...where, ...seriesCondition(s.event, s.properties, s.valueSets)].join(' AND ');
}

/** The values a cohort breakdown lists ('all' or cohort ids), in its order. */
export function cohortValues(b: Breakdown): string[] {
  return [...(b.labels?.keys() ?? [])];
}

/** Whether a cohort breakdown lists more cohorts than its limit (then some fold into "other"). */
export const cohortsPastLimit = (b: Breakdown | null): boolean => b !== null && b.source === 'cohort' && cohortValues(b).length > b.limit;

// A cohort breakdown past its limit, in one SELECT: each event once per listed cohort its
// person is in ('all': every event), as the planner unnests them, the cohort `cohort_value`.
const COHORT_VALUE = 'cohort_value';
const cohortArrayJoin = (b: Breakdown) =>
  ` ARRAY JOIN arrayFilter(x -> x IS NOT NULL, [${cohortValues(b).map((c) => (c === 'all' ? `'all'` : `if(coalesce(person_id IN COHORT ${c}, false), ${literal(c)}, NULL)`)).join(', ')}]) AS ${COHORT_VALUE}`;

// The events of one value of a cohort breakdown: its cohort's persons' (every event for 'all').
const cohortWhere = (where: string, cohort: string | undefined) => (cohort === undefined || cohort === 'all' ? where : `${where} AND person_id IN COHORT ${cohort}`);

/**
 * A series' breakdown value as a column over its events (`where`), values past the limit
 * folded into PostHog's "other" (kept: the top values by events, ties by value, as the
 * planner keeps them), or left out (then also a condition) when it is hidden.
 */
function breakdownColumn(b: Breakdown, where: string): { value: string; where: string; from: string } {
  const cohorts = b.source === 'cohort';
  const from = cohorts ? `events${cohortArrayJoin(b)}` : 'events';
  const value = cohorts ? COHORT_VALUE : breakdownText(b);
  const top = `(SELECT breakdown_value FROM (SELECT ${value} AS breakdown_value FROM ${from} WHERE ${where}) GROUP BY breakdown_value ORDER BY count() DESC, breakdown_value LIMIT ${b.limit})`;
  const other = b.multiple ? `[${b.parts.map(() => literal(BREAKDOWN_OTHER)).join(', ')}]` : literal(BREAKDOWN_OTHER);
  return b.hideOther ? { value, where: `${where} AND ${value} IN ${top}`, from } : { value: `if(${value} IN ${top}, ${value}, ${other})`, where, from };
}

/** One trends series (one period) as a HogQL SELECT: its total per interval and breakdown value. */
export function seriesSelect(s: SeriesText): string {
  const columns = [`${s.aggregate} AS total`];
  const keys: string[] = [];
  if (s.interval !== null) {
    columns.push(`${BUCKETS[s.interval](s.weekStart)} AS day_start`);
    keys.push('day_start');
  }
  let where = cohortWhere(eventsWhere(s), s.cohort);
  let from = 'events';
  if (s.cohort !== undefined) {
    columns.push(`${literal(s.cohort)} AS breakdown_value`);
    keys.push('breakdown_value');
  } else if (s.breakdown !== null) {
    const folded = breakdownColumn(s.breakdown, where);
    ({ where, from } = folded);
    columns.push(`${folded.value} AS breakdown_value`);
    keys.push('breakdown_value');
  }
  const groupBy = keys.length ? ` GROUP BY ${keys.join(', ')} ORDER BY ${keys.join(', ')}` : '';
  return `SELECT ${columns.join(', ')} FROM ${from} WHERE ${where}${groupBy} LIMIT 50000`;
}

/** How an interval's periods follow one another from the first (dates; hours as instants). */
const NEXT: Record<Interval, string> = { hour: 'addHours', day: 'addDays', week: 'addWeeks', month: 'addMonths' };

/**
 * A weekly or monthly active users series (one period) as HogQL, as PostHog writes it: the
 * actors' active days crossed with the range's periods (`numbers`), each period counting the
 * distinct actors active on its day or the `window` - 1 days before (`first`: the first
 * period as a HogQL value, `periods` how many). `fromUs` reaches back `window` - 1 days
 * before the first period. With a total value (no interval), the actors active in the
 * range's last `window` days.
 */
export function activeUsersSelect(s: Omit<SeriesText, 'aggregate'> & { window: number; actor: string; first: string; periods: number }): string {
  if (s.interval === null) return seriesSelect({ ...s, aggregate: `count(DISTINCT ${s.actor})` });
  let where = cohortWhere(eventsWhere(s), s.cohort);
  let from = 'events';
  const inner = ['toDate(timestamp) AS day', `${s.actor} AS actor_id`];
  const keys = ['day_start'];
  if (s.cohort !== undefined) {
    inner.push(`${literal(s.cohort)} AS breakdown_value`);
    keys.push('breakdown_value');
  } else if (s.breakdown !== null) {
    const folded = breakdownColumn(s.breakdown, where);
    ({ where, from } = folded);
    inner.push(`${folded.value} AS breakdown_value`);
    keys.push('breakdown_value');
  }
  const grouped = ['day', 'actor_id', ...keys.slice(1)].join(', ');
  const outer = keys.map((k) => (k === 'day_start' ? 'd.day_start AS day_start' : `e.${k} AS ${k}`)).join(', ');
  return `SELECT counts AS total, ${keys.join(', ')} FROM (SELECT ${outer}, count(DISTINCT e.actor_id) AS counts FROM (SELECT ${inner.join(', ')} FROM ${from} WHERE ${where} GROUP BY ${grouped}) e CROSS JOIN (SELECT ${NEXT[s.interval]}(${s.first}, number) AS day_start FROM numbers(${s.periods})) d WHERE e.day <= toDate(d.day_start) AND e.day > subtractDays(toDate(d.day_start), ${s.window}) GROUP BY ${keys.join(', ')}) ORDER BY ${keys.join(', ')} LIMIT 50000`;
}

// Lifecycle's periods as values one period apart by arithmetic: days as local dates (a day
// is not always 24 hours), hours as instants, weeks and months as their first day.
const PERIODS: Record<Interval, (column: string, weekStart: 0 | 1) => string> = {
  hour: (c) => `toStartOfHour(${c})`,
  day: (c) => `toDate(${c})`,
  week: (c, weekStart) => `toStartOfWeek(${c}, ${weekStart})`,
  month: (c) => `toStartOfMonth(${c})`,
};

/**
 * The lifecycle query as HogQL: each person's (or with `actorGroup` each group's) active
 * periods (from one period before the range), each one new (its first, in the period it was created),
 * returning (active the period before) or resurrecting; the period after an active one
 * without activity dormant. Persons per period and status, in the range's periods
 * (`first`, `last`: HogQL values of its first and last period).
 */
export function lifecycleSelect(s: EventsText & { interval: Interval; weekStart: 0 | 1; first: string; last: string; actorGroup: number | null }): string {
  const one = `INTERVAL 1 ${s.interval.toUpperCase()}`;
  const period = (c: string) => PERIODS[s.interval](c, s.weekStart);
  // Counting groups: the events' keys of the type ('' left out), created when the groups
  // table says (a group never identified is never new).
  const g = s.actorGroup;
  const [id, where, created] = g === null
    ? ['person_id', eventsWhere(s), 'persons p ON p.id = a.person_id']
    : [`$group_${g}`, `${eventsWhere(s)} AND $group_${g} != ''`, `groups p ON p.index = ${g} AND p.key = a.person_id`];
  return `WITH active AS (SELECT DISTINCT ${id} AS person_id, ${period('timestamp')} AS start FROM events WHERE ${where}),
periods AS (SELECT a.person_id AS person_id, a.start AS start, lagInFrame(a.start) OVER w AS previous, leadInFrame(a.start) OVER w AS next, ${period('p.created_at')} AS created FROM active a LEFT JOIN ${created} WINDOW w AS (PARTITION BY a.person_id ORDER BY a.start ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)),
statuses AS (SELECT start AS period, multiIf(previous IS NULL AND created = start, 'new', previous = start - ${one}, 'returning', 'resurrecting') AS status, person_id FROM periods UNION ALL SELECT start + ${one} AS period, 'dormant' AS status, person_id FROM periods WHERE next IS NULL OR next > start + ${one})
SELECT period, status, count(DISTINCT person_id) AS total FROM statuses WHERE period >= ${s.first} AND period <= ${s.last} GROUP BY period, status ORDER BY period, status LIMIT 50000`;
}

// A retention's value for all users: PostHog's ALL_USERS_COHORT_ID, as the insight shows it.
const ALL_USERS = '0';

/** What a retention breaks down by: a property or expression, or a cohort breakdown's cohorts. */
export interface RetentionBreakdownText {
  breakdown: Breakdown;
  /** A cohort breakdown's values ('all' or cohort ids); null for a property or expression. */
  cohorts: string[] | null;
}

/**
 * The retention query as HogQL: each cohort period's persons (`first time`: by their first
 * target period ever), and per later period within `lookahead` those who did the returning
 * event (`minimum` times in it); `cumulative`, a person counted in every period up to their
 * furthest return. `first`, `last`: HogQL values of the first and last cohort periods.
 * With a breakdown, each (person, value) followed on its own over the events carrying the
 * value ('' when absent; a cohort breakdown's value the cohort, over its persons' events),
 * a row per value (`breakdown_value` first), the values past the limit by cohort sizes
 * summed (ties by value) folded into PostHog's "other". `actor`: what is followed (the
 * person, or a group's key).
 */
export function retentionSelect(s: {
  target: EventsText; returning: EventsText & { minimum: number }; firstTime: boolean; interval: Interval; weekStart: 0 | 1;
  first: string; last: string; lookahead: number; cumulative: boolean; breakdown: RetentionBreakdownText | null; actor: string;
}): string {
  const period = (c: string) => PERIODS[s.interval](c, s.weekStart);
  // Periods apart: weeks by their days (both sides start a week), the rest by the unit.
  const apart = (a: string, b: string) => (s.interval === 'week' ? `intDiv(dateDiff('day', ${a}, ${b}), 7)` : `dateDiff('${s.interval}', ${a}, ${b})`);
  const b = s.breakdown;
  // The unit followed: the actor, with its value.
  const v = b === null ? '' : ', value';
  // A scan of the events as (actor[, value], period) rows: per cohort of a cohort breakdown, one SELECT.
  const scan = (events: EventsText, distinct: boolean): string => {
    const select = distinct ? 'SELECT DISTINCT' : 'SELECT';
    const one = (value: string | null, where: string) => `${select} ${s.actor} AS actor_id${value === null ? '' : `, ${value} AS value`}, ${period('timestamp')} AS start FROM events WHERE ${where}`;
    if (b === null) return one(null, eventsWhere(events));
    if (b.cohorts === null) return one(`coalesce(${partValue(b.breakdown)}, '')`, eventsWhere(events));
    return b.cohorts.map((c) => one(literal(c === 'all' ? ALL_USERS : c), cohortWhere(eventsWhere(events), c))).join(' UNION ALL ');
  };
  const cohort = s.firstTime
    ? `SELECT actor_id${v}, min(start) AS cohort FROM target GROUP BY actor_id${v} HAVING cohort >= ${s.first} AND cohort <= ${s.last}`
    : `SELECT actor_id${v}, start AS cohort FROM target WHERE start >= ${s.first} AND start <= ${s.last}`;
  const returns = s.returning.minimum > 1
    ? `SELECT actor_id${v}, start FROM (${scan(s.returning, false)}) GROUP BY actor_id${v}, start HAVING count() >= ${s.returning.minimum}`
    : scan(s.returning, true);
  const joined = `FROM cohorts c JOIN returns r ON r.actor_id = c.actor_id${b === null ? '' : ' AND r.value = c.value'} WHERE r.start > c.cohort AND ${apart('c.cohort', 'r.start')} < ${s.lookahead}`;
  const cv = b === null ? '' : ', c.value';
  const later = s.cumulative
    // Each (actor, cohort) counted in periods 1 to its furthest return.
    ? `SELECT cohort${v}, arrayJoin(range(1, furthest + 1)) AS period, count() AS n FROM (SELECT c.actor_id AS actor_id${cv} AS value, c.cohort AS cohort, max(${apart('c.cohort', 'r.start')}) AS furthest ${joined} GROUP BY actor_id${v}, cohort) GROUP BY cohort${v}, period`
    : `SELECT c.cohort AS cohort${b === null ? '' : ', c.value AS value'}, ${apart('c.cohort', 'r.start')} AS period, count() AS n ${joined} GROUP BY cohort${v}, period`;
  const counts = `SELECT cohort${v}, 0 AS period, count() AS n FROM cohorts GROUP BY cohort${v}
UNION ALL
${later}`;
  const ctes = `WITH target AS (${scan(s.target, true)}),
cohorts AS (${cohort}),
returns AS (${returns})`;
  if (b === null) return `${ctes}
SELECT cohort, period, n AS total FROM (${counts})
ORDER BY cohort, period LIMIT 50000`;
  // Ties by value as the planner orders them: all users' as 'all', not its shown 0.
  const tie = b.cohorts === null ? 'value' : `if(value = ${literal(ALL_USERS)}, 'all', value)`;
  const top = `(SELECT value FROM cohorts GROUP BY value ORDER BY count() DESC, ${tie} LIMIT ${b.breakdown.limit})`;
  return `${ctes}
SELECT if(value IN ${top}, value, ${literal(BREAKDOWN_OTHER)}) AS breakdown_value, cohort, period, sum(n) AS total FROM (${counts})
GROUP BY breakdown_value, cohort, period ORDER BY breakdown_value, cohort, period LIMIT 50000`;
}

/**
 * One stickiness series (one period) as HogQL: persons by the number of intervals in which
 * they did the event (`counted`: the per-interval condition, PostHog's count() > 0 unless
 * stickinessCriteria say otherwise).
 */
export function stickinessSelect(s: EventsText & { interval: Interval; weekStart: 0 | 1; counted: string; actor: StickinessActor; spans?: StickinessSpans }): string {
  // What is counted: persons; a group type's keys (an event without one, '', not counted); or
  // the values of a HogQL expression (NULL not counted).
  const [id, present] = s.actor.kind === 'person' ? ['person_id', null]
    : s.actor.kind === 'group' ? [`$group_${s.actor.index}`, `$group_${s.actor.index} != ''`]
      : [`toString(${s.actor.expression})`, `(${s.actor.expression}) IS NOT NULL`];
  const where = present === null ? eventsWhere(s) : `${eventsWhere(s)} AND ${present}`;
  // With intervalCount k: the span of k days back from the range's last day (0: the last k days).
  const start = s.spans === undefined ? BUCKETS[s.interval](s.weekStart) : `intDiv(${daysBack(s.spans)}, ${s.spans.days})`;
  const active = `SELECT ${id} AS actor, ${start} AS start FROM events WHERE ${where} GROUP BY actor, start HAVING ${s.counted}`;
  return `SELECT count() AS total, num_intervals FROM (SELECT actor, count() AS num_intervals FROM (${active}) GROUP BY actor) GROUP BY num_intervals ORDER BY num_intervals LIMIT 50000`;
}

/** intervalCount k's spans: k days each, counted back from the range's end, at `endMs` into its local day `lastDay` (YYYY-MM-DD). */
export interface StickinessSpans { days: number; lastDay: string; endMs: number }

// Whole days from the event back to the range's end, on the wall clock: the days between
// their dates, one less when the event's time of day (to the millisecond) is past the end's.
function daysBack(spans: StickinessSpans): string {
  const days = `dateDiff('day', timestamp, toDate(${literal(spans.lastDay)}))`;
  if (spans.endMs === DAY_MS - 1) return days;
  const ms = '((toHour(timestamp) * 3600 + toMinute(timestamp) * 60 + toSecond(timestamp)) * 1000 + toUnixTimestamp64Milli(timestamp) % 1000)';
  return `(${days} - if(${ms} > ${spans.endMs}, 1, 0))`;
}

const DAY_MS = 86_400_000;

/** What a stickiness series counts: persons, a group type's keys (math unique_group), or a HogQL expression's values (math hogql). */
export type StickinessActor = { kind: 'person' } | { kind: 'group'; index: number } | { kind: 'hogql'; expression: string };

/** How a funnel's breakdown value is attributed to a person (PostHog's breakdownAttributionType). */
export interface FunnelBreakdownText {
  breakdown: Breakdown;
  attribution: 'first_touch' | 'last_touch' | 'step' | 'all_events';
  /** The step whose events give the value, for `step`. */
  step: number;
}

const ATTRIBUTED: Record<Exclude<FunnelBreakdownText['attribution'], 'all_events'>, (step: number) => string> = {
  first_touch: () => 'argMinIf(value, (ts, value), value IS NOT NULL)',
  last_touch: () => 'argMaxIf(value, (ts, value), value IS NOT NULL)',
  step: (k) => `argMinIf(value, (ts, value), value IS NOT NULL AND s${k})`,
};

/** A funnel as its planner reads it (planner/funnels.ts). */
export interface FunnelText {
  steps: { event: SeriesEvent; properties: unknown[] }[];
  /** funnelsFilter.exclusions: the event and the steps (0-based) between which it disqualifies a try. */
  exclusions: { event: SeriesEvent; properties: unknown[]; from: number; to: number }[];
  properties: unknown; fromUs: number; toUs: number; windowSeconds: number; valueSets: ValueSets;
  order: 'ordered' | 'strict' | 'unordered'; breakdown: FunnelBreakdownText | null; actorGroup: number | null;
}

/**
 * A funnel's CTEs as HogQL, ending with `first_paths`: per unit (`pid`, the person, or the
 * group with `actorGroup`; with a breakdown also `bv`, its value) the furthest step it
 * reached (`steps`) and the times of the path PostHog times (`t0`, `t1`, …). First each
 * unit's events in the range (the step and exclusion events; for a strict funnel every
 * event, numbered in time order, earlier steps first at one instant), each step a flag
 * `s0`, `s1`, …, each exclusion `x0`, …; then the tries:
 *   ordered    from each step-1 event, every next step the earliest matching event after the previous one;
 *   strict     from each step-1 event, every next step the unit's very next event, when it matches;
 *   unordered  from each step event, each step's first event at or after it, in time order.
 * A try reaches the steps within the conversion window (`windowSeconds` from its start). An
 * exclusion drops a try when its first event after step `from` comes before step `to` (none:
 * before step `from` plus the window; unordered: after the start, before the last step).
 * The unit's path: of the tries reaching its furthest step, the one that got there first
 * (then the latest started, then the earliest steps). A breakdown value is the unit's by
 * attribution (first_touch, last_touch, step: from its step events that have one), or with
 * all_events each (unit, value) its own funnel over that value's events; a cohort breakdown
 * is all_events over each cohort's persons' events, the value the cohort ('all': everyone).
 */
export function funnelPathCtes(s: FunnelText): string[] {
  const n = s.steps.length;
  const keys = s.breakdown === null ? 'pid' : 'pid, bv';
  const ts = Array.from({ length: n }, (_, i) => `t${i}`);
  const lastStep = `multiIf(${Array.from({ length: n - 1 }, (_, k) => `steps = ${k + 1}, t${k}`).join(', ')}, t${n - 1})`;
  const order = ['steps DESC', `${lastStep} ASC`, 't0 DESC', ...ts.slice(1).map((t) => `${t} ASC`)].join(', ');
  return [
    ...funnelTryCtes(s),
    `paths AS (SELECT ${keys}, steps, ${ts.join(', ')}, row_number() OVER (PARTITION BY pid ORDER BY ${order}) AS rn FROM tries)`,
    `first_paths AS (SELECT ${keys}, steps, ${ts.join(', ')} FROM paths WHERE rn = 1)`,
  ];
}

/** The funnel's CTEs up to `tries` (per unit, and value, each try's furthest step and its times `t0`, `t1`, …), as funnelPathCtes says. */
function funnelTryCtes(s: FunnelText): string[] {
  const n = s.steps.length;
  const condition = (event: SeriesEvent, properties: unknown[]) => {
    const parts = seriesCondition(event, properties, s.valueSets);
    return parts.length === 0 ? 'true' : parts.join(' AND ');
  };
  const conditions = s.steps.map((step) => condition(step.event, step.properties));
  const excluding = s.exclusions.map((x) => condition(x.event, x.properties));
  const where = [`timestamp >= toDateTime(${literal(iso(s.fromUs))})`, `timestamp < toDateTime(${literal(iso(s.toUs))})`];
  if (hasFilters(s.properties)) where.push(propertiesText(s.properties as Properties, s.valueSets));
  const actor = s.actorGroup === null ? 'person_id' : `$group_${s.actorGroup}`;
  if (s.actorGroup !== null) where.push(`${actor} != ''`);
  if (s.order !== 'strict') where.push(`(${[...conditions, ...excluding].map((c) => `(${c})`).join(' OR ')})`);
  const stepNames = conditions.map((_, k) => `s${k}`);
  const flagNames = [...stepNames, ...excluding.map((_, i) => `x${i}`)];
  const flags = [...conditions, ...excluding].map((c, k) => `coalesce(${c}, false) AS ${flagNames[k]}`).join(', ');
  const anyStep = `(${stepNames.join(' OR ')})`;
  const window = `toIntervalSecond(${s.windowSeconds})`;
  const ctes: string[] = [];
  const b = s.breakdown;
  if (b === null) {
    ctes.push(`step_events AS (SELECT ${actor} AS pid, timestamp AS ts, ${flags} FROM events WHERE ${where.join(' AND ')})`);
  } else {
    const orNull = (x: string) => `coalesce(${x}, ${literal(BREAKDOWN_NULL)})`;
    const other = literal(BREAKDOWN_OTHER);
    const limit = b.breakdown.limit;
    if (b.attribution === 'all_events') {
      // A cohort breakdown: each person through the funnel once per cohort it is in (its events there, a SELECT per cohort).
      // Else the values past the limit (the top by units with a first-step event, ties by
      // value) fold into "other" before the funnel, as the planner folds them: a unit's
      // events of several folded values make one funnel.
      let branches: { value: string; where: string }[];
      if (b.breakdown.source === 'cohort') {
        const cohorts = cohortValues(b.breakdown).map((c) => ({ value: literal(c), where: cohortWhere(where.join(' AND '), c) }));
        branches = cohorts;
        if (cohortsPastLimit(b.breakdown)) {
          // Past the limit: the top cohorts by persons with a first-step event, ties by value.
          const firsts = cohorts.map((x) => `SELECT ${actor} AS a, ${x.value} AS v FROM events WHERE ${x.where} AND (${conditions[0]})`);
          ctes.push(`top_values AS (SELECT v FROM (${firsts.join(' UNION ALL ')}) GROUP BY v ORDER BY count(DISTINCT a) DESC, v LIMIT ${limit})`);
          branches = cohorts.map((x) => ({ value: `if(${x.value} IN (SELECT v FROM top_values), ${x.value}, ${other})`, where: x.where }));
        }
      } else {
        const value = orNull(partValue(b.breakdown));
        ctes.push(`top_values AS (SELECT ${value} AS v FROM events WHERE ${[...where, `(${conditions[0]})`].join(' AND ')} GROUP BY v ORDER BY count(DISTINCT ${actor}) DESC, v LIMIT ${limit})`);
        branches = [{ value: `if(${value} IN (SELECT v FROM top_values), ${value}, ${other})`, where: where.join(' AND ') }];
      }
      const scans = branches.map((x) => `SELECT concat(toString(${actor}), '|', ${x.value}) AS pid, ${x.value} AS bv, timestamp AS ts, ${flags} FROM events WHERE ${x.where}`);
      ctes.push(`step_events AS (${scans.join(' UNION ALL ')})`);
    } else {
      const value = partValue(b.breakdown);
      // With exclusions, a unit's value comes from its step events only.
      const valued = s.exclusions.length > 0 ? ` WHERE ${anyStep}` : '';
      // Values past the limit (the top by units, ties by value) fold into "other".
      const folded = `if(${orNull('v.value')} IN (SELECT v FROM top_values), ${orNull('v.value')}, ${other})`;
      ctes.push(
        `funnel_events AS (SELECT ${actor} AS pid, timestamp AS ts, ${flags}, ${value} AS value FROM events WHERE ${where.join(' AND ')})`,
        `person_value AS (SELECT pid, ${ATTRIBUTED[b.attribution](b.step)} AS value FROM funnel_events${valued} GROUP BY pid)`,
        `top_values AS (SELECT ${orNull('value')} AS v FROM person_value GROUP BY v ORDER BY count() DESC, v LIMIT ${limit})`,
        `step_events AS (SELECT e.pid AS pid, ${folded} AS bv, e.ts AS ts, ${flagNames.map((f) => `e.${f} AS ${f}`).join(', ')} FROM funnel_events e JOIN person_value v ON v.pid = e.pid)`,
      );
    }
  }
  const keys = (alias: string) => (b === null ? `${alias}pid` : `${alias}pid, ${alias}bv`);
  const unit = (alias: string) => (b === null ? `${alias}pid AS pid` : `${alias}pid AS pid, ${alias}bv AS bv`);
  const ts = (alias: string, k = n) => Array.from({ length: k }, (_, i) => `${alias}t${i}`);
  const carried = (k: number) => ts('c.', k).map((t, i) => `${t} AS t${i}`).join(', ');
  if (s.order === 'unordered') {
    // Each step's first event at or after the try's start; those within the window, in time order.
    const firsts = stepNames.map((f, k) => `minIf(e.ts, e.${f}) AS f${k}`);
    const excluded = s.exclusions.map((_, i) => `minIf(e.ts, e.x${i} AND e.ts > a.ts) AS y${i}`);
    ctes.push(`starts AS (SELECT ${unit('a.')}, a.ts AS t, ${[...firsts, ...excluded].join(', ')} FROM step_events a JOIN step_events e ON e.pid = a.pid AND e.ts >= a.ts WHERE (${stepNames.map((f) => `a.${f}`).join(' OR ')}) GROUP BY ${keys('a.')}, a.ts)`);
    const found = `arraySort(arrayFilter(x -> x IS NOT NULL, [${stepNames.map((_, k) => `f${k}`).join(', ')}]))`;
    const within = `arraySort(arrayFilter(x -> x IS NOT NULL, [${stepNames.map((_, k) => `if(f${k} <= t + ${window}, f${k}, NULL)`).join(', ')}]))`;
    const end = `if(length(${found}) = ${n}, ${found}[${n}], t + ${window})`;
    const kept = s.exclusions.length === 0 ? '' : ` WHERE NOT (${s.exclusions.map((_, i) => `coalesce(y${i} < ${end}, false)`).join(' OR ')})`;
    ctes.push(`hits AS (SELECT ${keys('')}, ${within} AS times FROM starts${kept})`);
    ctes.push(`tries AS (SELECT ${keys('')}, length(times) AS steps, ${stepNames.map((_, k) => `times[${k + 1}] AS t${k}`).join(', ')} FROM hits)`);
  } else {
    const strict = s.order === 'strict';
    if (strict) ctes.push(`numbered AS (SELECT ${keys('')}, ts, ${flagNames.join(', ')}, row_number() OVER (PARTITION BY pid ORDER BY ts, ${stepNames.map((f) => `${f} DESC`).join(', ')}) AS n FROM step_events)`);
    ctes.push(`c0 AS (SELECT ${keys('')}, ts AS t0${strict ? ', n AS n0' : ''} FROM ${strict ? 'numbered' : 'step_events'} WHERE s0)`);
    for (let k = 1; k < n; k++) {
      ctes.push(strict
        ? `c${k} AS (SELECT ${unit('c.')}, ${carried(k)}, e.ts AS t${k}, e.n AS n${k} FROM c${k - 1} c LEFT JOIN numbered e ON e.pid = c.pid AND e.n = c.n${k - 1} + 1 AND e.s${k})`
        : `c${k} AS (SELECT ${unit('c.')}, ${carried(k)}, min(e.ts) AS t${k} FROM c${k - 1} c LEFT JOIN step_events e ON e.pid = c.pid AND e.s${k} AND e.ts > c.t${k - 1} GROUP BY ${keys('c.')}, ${ts('c.', k).join(', ')})`);
    }
    const reached = Array.from({ length: n - 1 }, (_, i) => `if(c.t${i + 1} <= c.t0 + ${window}, 1, 0)`).join(' + ');
    const columns = `${unit('c.')}, 1 + ${reached} AS steps, ${carried(n)}`;
    if (s.exclusions.length === 0) {
      ctes.push(`tries AS (SELECT ${columns} FROM c${n - 1} c)`);
    } else {
      const dropped = s.exclusions.map((x, i) => `coalesce(minIf(e.ts, e.x${i} AND e.ts > c.t${x.from}) < coalesce(c.t${x.to}, c.t${x.from} + ${window}), false)`);
      ctes.push(`tries AS (SELECT ${columns} FROM c${n - 1} c LEFT JOIN step_events e ON e.pid = c.pid AND (${s.exclusions.map((_, i) => `e.x${i}`).join(' OR ')}) GROUP BY ${keys('c.')}, ${ts('c.').join(', ')} HAVING NOT (${dropped.join(' OR ')}))`);
    }
  }
  return ctes;
}

/** Whole seconds from step k-1 to step k on a unit's path (as ClickHouse's dateDiff('second')), when it got that far. */
const conversionTime = (k: number) => `if(steps > ${k}, toUnixTimestamp(t${k}) - toUnixTimestamp(t${k - 1}), NULL)`;

/**
 * The funnel's steps view as HogQL: one row, the units at each step (`step_1`, …) and, for
 * each step after the first, the average and median whole seconds its units took from the
 * step before on their paths (`step_1_average_conversion_time`: from step 1 to step 2, as
 * PostHog names them); with a breakdown a row per value (`breakdown_value` first).
 */
export function funnelSelect(s: FunnelText): string {
  const n = s.steps.length;
  const later = Array.from({ length: n - 1 }, (_, i) => i + 1);
  const times = later.map((k) => `${conversionTime(k)} AS a${k}`).join(', ');
  const counts = s.steps.map((_, k) => `countIf(steps >= ${k + 1}) AS step_${k + 1}`);
  const averages = later.map((k) => `avg(a${k}) AS step_${k}_average_conversion_time, median(a${k}) AS step_${k}_median_conversion_time`);
  const columns = [...counts, ...averages].join(', ');
  const from = `FROM (SELECT *, ${times} FROM first_paths)`;
  return s.breakdown === null
    ? `WITH ${funnelPathCtes(s).join(',\n')}
SELECT ${columns} ${from}`
    : `WITH ${funnelPathCtes(s).join(',\n')}
SELECT bv AS breakdown_value, ${columns} ${from} GROUP BY bv ORDER BY bv LIMIT 50000`;
}

/**
 * funnelVizType trends as HogQL: each unit enters in the period of a try's first step, with
 * the furthest step any try begun in that period reached; per period (and breakdown value)
 * the units that reached step `from` and those that reached step `to` (0-based), and PostHog's
 * conversion rate: to / from × 100 to two places (0 when none reached `from`). Periods where
 * nobody entered have no row (the insight shows 0 there).
 */
export function funnelTrendsSelect(s: FunnelText & { interval: Interval; weekStart: 0 | 1; from: number; to: number }): string {
  const toTries = funnelTryCtes(s);
  const keys = s.breakdown === null ? 'pid' : 'pid, bv';
  toTries.push(`entered AS (SELECT ${keys}, ${PERIODS[s.interval]('t0', s.weekStart)} AS period, max(steps) AS steps FROM tries GROUP BY ${keys}, period)`);
  const group = s.breakdown === null ? 'period' : 'bv, period';
  return `WITH ${toTries.join(',\n')}
SELECT ${s.breakdown === null ? '' : 'bv AS breakdown_value, '}period, countIf(steps >= ${s.from + 1}) AS reached_from, countIf(steps >= ${s.to + 1}) AS reached_to, if(reached_from = 0, 0, roundBankers(reached_to / reached_from * 100, 2)) AS conversion_rate FROM entered GROUP BY ${group} ORDER BY ${group} LIMIT 50000`;
}

/**
 * funnelVizType time_to_convert as HogQL: the whole seconds from step `from` to step `to`
 * on the paths of the units that reached it, in PostHog's histogram: from the floor of the
 * least to the ceiling of the most, `binCount` bins (null: the cube root of the units, 1…60)
 * each ceil(span / bins) seconds wide (60 when that is 0), one bin more at the end. A row per
 * bin: where it starts (`bin_from_seconds`), its units, and the average rounded to two
 * places (ties to even, as ClickHouse rounds floats).
 */
export function timeToConvertSelect(s: FunnelText & { from: number; to: number; binCount: number | null }): string {
  const total = Array.from({ length: s.to - s.from }, (_, i) => conversionTime(s.from + i + 1)).join(' + ');
  const bins = s.binCount === null ? 'least(60, greatest(1, ceil(cbrt(count()))))' : String(s.binCount);
  return `WITH ${funnelPathCtes(s).join(',\n')},
samples AS (SELECT ${total} AS v FROM first_paths WHERE steps > ${s.to}),
params AS (SELECT coalesce(floor(min(v)), 0) AS lo, coalesce(ceil(max(v)), 1) AS hi, avg(v) AS average, ${bins} AS bins FROM samples),
histogram AS (SELECT lo, bins, average, if(ceil((hi - lo) / bins) > 0, ceil((hi - lo) / bins), 60) AS width FROM params),
binned AS (SELECT floor((s.v - h.lo) / h.width) AS i, count() AS persons FROM samples s CROSS JOIN histogram h GROUP BY i),
bin_list AS (SELECT arrayJoin(range(0, toInt(bins) + 1)) AS i FROM histogram)
SELECT h.lo + b.i * h.width AS bin_from_seconds, coalesce(c.persons, 0) AS person_count, roundBankers(h.average, 2) AS average_conversion_time
FROM histogram h CROSS JOIN bin_list b LEFT JOIN binned c ON c.i = b.i ORDER BY b.i LIMIT 50000`;
}
