// PathsQuery → one statement: each person's events in the range become path items (a
// pageview's URL, a screen's name, otherwise the event's name; cleaned and grouped), split
// into sessions at a gap of 30 minutes or more, consecutive repeats folded into one, cut to
// the start/end point and the step limit; every consecutive pair of a session's path is an
// edge "i_source" → "i+1_target". PostHog's rules (posthog/hogql_queries/insights/paths/):
// edges weigh the session paths that take them, ordered by weight, source, target, limited,
// and only those reachable from a first step are answered.
import { compileSafeRegex } from '../../matching/regex.js';
import type { FunnelsQuery, PathsQuery } from '../schemas.js';
import { funnelCtes, funnelText } from './funnels.js';
import type { CellActors } from './cells.js';
import { eventsFrom, needsPersons, queryPropertiesWhere, scopeWhere, toNumber, type Plan, type PlanContext } from './context.js';
import { isoWithOffset, resolveRange } from './dates.js';
import { QueryError, within } from './errors.js';
import { pathsHogQLItem, rowExpression } from './hogql-row.js';
import { str } from './hogql/expr.js';
import { pathsSelect } from './hogql-paths-text.js';
import { funnelPathsRestriction } from './hogql-funnel-paths-text.js';
import { propertyText } from './properties.js';
import { and, int, join, or, raw, sql, texts, type Sql } from './sql.js';

export interface PathsLink {
  source: string;
  target: string;
  value: number;
  /** Mean time from the source step to the target step, in milliseconds. */
  average_conversion_time: number;
}

export interface PathsResult {
  results: PathsLink[];
  dateFrom: string;
  dateTo: string;
}

const STEP_LIMIT_DEFAULT = 5;
const EDGE_LIMIT_DEFAULT = 50;
/** A gap this long (µs) or longer between a person's events starts a new session path. */
const SESSION_GAP_US = 30 * 60 * 1_000_000;

type Filter = NonNullable<PathsQuery['pathsFilter']>;

/** Whether an event type's path item is its own (PostHog's _should_query_event). */
function itemOf(filter: Filter, type: string): boolean {
  const include = filter.includeEventTypes ?? [];
  if (include.length === 0) return !(filter.excludeEvents ?? []).includes(type);
  return (include as string[]).includes(type);
}

/** The "hogql" event type's path item (its expression's value as text) and whether it reads the person; null: the event's name. */
function hogqlItem(filter: Filter, ctx: PlanContext): { text: Sql; persons: boolean } | null {
  const source = pathsHogQLItem(filter);
  if (source === null) return null;
  const attr = 'pathsFilter.pathsHogQLExpression';
  const { expr, persons } = rowExpression(ctx, source, attr);
  if (expr.aggregate !== null) throw new QueryError(`Aggregation '${expr.aggregate}' is not allowed in a path item: ${source}`, attr);
  return { text: str(expr), persons };
}

// The event's path item before cleaning: URL (one trailing slash dropped) for pageviews,
// screen name for screens, else the "hogql" type's expression or the event's name; '' when absent.
function rawItem(filter: Filter, hogql: Sql | null): Sql {
  let item: Sql = hogql ?? raw('e.event');
  if (itemOf(filter, '$pageview')) {
    item = sql`CASE WHEN e.event = ${'$pageview'} THEN regexp_replace(coalesce(${propertyText('event', '$current_url')}, ''), '(.)/$', '\\1') ELSE ${item} END`;
  }
  if (itemOf(filter, '$screen')) item = sql`CASE WHEN e.event = ${'$screen'} THEN ${propertyText('event', '$screen_name')} ELSE ${item} END`;
  return sql`coalesce(${item}, '')`;
}

/** Cleaning rules in order (regex → alias, every match), then the first grouping that matches. */
function cleanedItem(filter: Filter, item: Sql): Sql {
  const groupings = groupingPatterns(filter);
  (filter.localPathCleaningFilters ?? []).forEach((rule, i) => {
    if (compileSafeRegex(rule.regex) === undefined) {
      throw new QueryError(`Invalid path cleaning regex ${JSON.stringify(rule.regex)}`, `pathsFilter.localPathCleaningFilters.${i}.regex`);
    }
    item = sql`regexp_replace(${item}, ${rule.regex}, ${rule.alias}, 'g')`;
  });
  if (groupings.length === 0) return item;
  const whens = groupings.map((g) => sql`WHEN regexp_matches(${item}, ${g.pattern}) THEN ${g.name}`);
  return sql`CASE ${join(whens, ' ')} ELSE ${item} END`;
}

// A grouping is literal text but for "*", which stands for anything; matched anywhere in the item.
const groupingPatterns = (filter: Filter) => (filter.pathGroupings ?? []).map((name) => ({ name, pattern: name.split('*').map(escapeRegex).join('.*') }));

const escapeRegex = (s: string): string => s.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/** Which events are path steps: the event types asked for (all when none). */
function eventTypeWhere(filter: Filter): Sql[] {
  const include = filter.includeEventTypes ?? [];
  const types: Sql[] = [];
  if (include.includes('$pageview')) types.push(sql`e.event = ${'$pageview'}`);
  if (include.includes('$screen')) types.push(sql`e.event = ${'$screen'}`);
  if (include.includes('custom_event')) types.push(sql`NOT starts_with(e.event, ${'$'})`);
  return types.length > 0 ? [or(types)] : [];
}

/**
 * Which of a session's compacted steps (idx 1..n) are kept and at what position: from the
 * start point on, up to the end point (its first occurrence after the start), the first
 * stepLimit of them (with an end point only: the last ones). With both points a path longer
 * than the limit keeps its first and last limit/2 steps around one "..." step.
 */
function cut(filter: Filter, limit: number): { keep: Sql; pos: Sql; item: Sql } {
  const { startPoint, endPoint } = filter;
  if (startPoint && endPoint) {
    const h = Math.floor(limit / 2);
    const f = raw('(idx - s + 1)');
    const len = raw('(t - s + 1)');
    return {
      keep: sql`s IS NOT NULL AND t IS NOT NULL AND idx BETWEEN s AND t AND (${len} <= ${int(limit)} OR ${f} <= ${int(h + 1)} OR ${f} > ${len} - ${int(h)})`,
      pos: sql`CASE WHEN ${len} <= ${int(limit)} OR ${f} <= ${int(h + 1)} THEN ${f} ELSE ${f} - ${len} + ${int(2 * h + 1)} END`,
      item: sql`CASE WHEN ${len} > ${int(limit)} AND ${f} = ${int(h + 1)} THEN '...' ELSE item END`,
    };
  }
  if (startPoint) return { keep: sql`s IS NOT NULL AND idx >= s AND idx < s + ${int(limit)}`, pos: raw('idx - s + 1'), item: raw('item') };
  if (endPoint) return { keep: sql`t IS NOT NULL AND idx <= t AND idx > t - ${int(limit)}`, pos: sql`idx - greatest(t - ${int(limit)}, 0)`, item: raw('item') };
  return { keep: sql`idx <= ${int(limit)}`, pos: raw('idx'), item: raw('item') };
}

/** A single point loses one trailing slash, as URLs do; with both points each is taken as given. */
function pointOf(point: string | null | undefined, both: boolean): string | null {
  if (!point) return null;
  return !both && point.length > 1 && point.endsWith('/') ? point.slice(0, -1) : point;
}

/**
 * A funnelPathsFilter's persons and which of their events are path steps (PostHog's
 * handle_funnel and funnel_join): the funnel's actors at funnelStep (k > 0: reached step k;
 * -k: dropped off at step k), each with the time of its target step (step k, or the last one
 * reached before dropping off) on the path the funnel follows for the person (who got no
 * further than step 1: their first step-1 event, as PostHog's funnel-udf); the events at
 * or after it (after a drop-off: once the conversion window has passed), at or before it,
 * or between the step before it and it.
 */
function funnelRestriction(query: PathsQuery, ctx: PlanContext): { ctes: Sql[]; where: Sql } | null {
  const f = query.funnelPathsFilter;
  if (!f) return null;
  const source = f.funnelSource as unknown as FunnelsQuery;
  const steps = source.series.length;
  const k = f.funnelStep ?? null;
  const attr = 'funnelPathsFilter.funnelStep';
  if (k === null || k === 0 || k === -1 || Math.abs(k) > steps) throw new QueryError(`funnelStep must be 1 to ${steps}, or -2 to -${steps} for who dropped off there`, attr);
  const target = k > 0 ? k - 1 : -k - 2;
  const between = f.funnelPathType === 'funnel_path_between_steps';
  if (between && target === 0) throw new QueryError('Paths between steps need a step after the first: the preceding step is where they start', attr);
  // The funnel's own breakdown or group aggregation would make its actors units PostHog's paths do not follow.
  if (source.breakdownFilter?.breakdown || (source.breakdownFilter?.breakdowns ?? []).length > 0) throw new QueryError('A funnel with a breakdown is not supported as the source of paths', 'funnelPathsFilter.funnelSource.breakdownFilter');
  if (source.aggregation_group_type_index !== null && source.aggregation_group_type_index !== undefined) {
    throw new QueryError('Paths follow persons: a funnel of groups is not supported as their source', 'funnelPathsFilter.funnelSource.aggregation_group_type_index');
  }
  const { ctes, windowUs } = within('funnelPathsFilter.funnelSource', () => funnelCtes(source, ctx));
  const reached = k > 0 ? sql`steps >= ${int(k)}` : sql`steps = ${int(-k - 1)}`;
  const actors = sql`funnel_actors AS (SELECT fp.pid AS fpid, fp.t${raw(String(target))} AS tt${between ? sql`, fp.t${raw(String(target - 1))} AS tp` : raw('')} FROM first_path fp WHERE fp.rn = 1 AND fp.${reached})`;
  const at = raw('epoch_us(e.timestamp)');
  let where: Sql;
  if (between) where = sql`${at} BETWEEN fa.tp AND fa.tt`;
  else if (f.funnelPathType === 'funnel_path_before_step') where = sql`${at} <= fa.tt`;
  else where = k < 0 ? sql`${at} >= fa.tt + ${int(windowUs)}` : sql`${at} >= fa.tt`;
  return { ctes: [...ctes, actors], where };
}

// funnelPathsFilter as the text says it (checked by funnelRestriction before this runs).
function funnelPathsText(query: PathsQuery, ctx: PlanContext): { ctes: string[]; where: string } | null {
  const f = query.funnelPathsFilter;
  if (!f) return null;
  const source = f.funnelSource as unknown as FunnelsQuery;
  return funnelPathsRestriction({
    funnel: funnelText(source, ctx, funnelCtes(source, ctx)), step: f.funnelStep!,
    type: f.funnelPathType === 'funnel_path_between_steps' || f.funnelPathType === 'funnel_path_before_step' ? f.funnelPathType : 'funnel_path_after_step',
  });
}

/**
 * The statement's CTEs up to `steps` (person, session, position, item, previous item, gap in µs).
 * Three sorts in all (each window spec is one): by person and time, where a session starts and
 * the next item in the same session (gaps); the running session number (sessions); then the
 * steps left once repeats are folded into the last of them, numbered within their session with
 * the step before each (numbered). A session's last item is compared with '', as PostHog's
 * array comparison past its end does, so a trailing empty item is folded away too.
 */
function pathStepsSql(query: PathsQuery, ctx: PlanContext): Sql {
  const filter: Filter = query.pathsFilter ?? {};
  const limit = filter.stepLimit || STEP_LIMIT_DEFAULT;
  const r = resolveRange(query.dateRange, 'day', ctx);
  const hogql = hogqlItem(filter, ctx);
  const persons = needsPersons(ctx, query.properties) || hogql?.persons === true;
  const both = !!filter.startPoint && !!filter.endPoint;
  const start = pointOf(filter.startPoint, both);
  const end = pointOf(filter.endPoint, both);
  const excluded = (filter.includeEventTypes ?? []).length > 0 ? filter.excludeEvents ?? [] : [];
  const { keep, pos, item } = cut(filter, limit);
  const startIdx = start === null ? raw('NULL') : sql`min(idx) FILTER (WHERE item = ${start}) OVER session`;
  const endIdx = end === null ? raw('NULL') : sql`min(idx) FILTER (WHERE item = ${end} AND idx >= coalesce(s, 1)) OVER session`;
  const funnel = funnelRestriction(query, ctx);
  return sql`${funnel ? sql`${join(funnel.ctes, ',\n')},\n` : raw('')}raw_items AS (
  SELECT e.person_id AS pid, e.timestamp AS ts, e.uuid AS id, ${rawItem(filter, hogql?.text ?? null)} AS item0
  FROM ${eventsFrom(persons)}${funnel ? raw(' JOIN funnel_actors fa ON fa.fpid = e.person_id') : raw('')}
  WHERE ${and([...scopeWhere(ctx, r.fromUs, r.toUs), ...queryPropertiesWhere(query.properties, ctx), ...eventTypeWhere(filter), ...(funnel ? [funnel.where] : [])])}
), items AS (
  SELECT pid, ts, id, ${cleanedItem(filter, raw('item0'))} AS item FROM raw_items
), gaps AS (
  SELECT pid, ts, id, item,
    CASE WHEN epoch_us(ts) - lag(epoch_us(ts)) OVER w >= ${int(SESSION_GAP_US)} THEN 1 ELSE 0 END AS new_session,
    CASE WHEN lead(epoch_us(ts)) OVER w - epoch_us(ts) < ${int(SESSION_GAP_US)} THEN lead(item) OVER w END AS next_item
  FROM items ${excluded.length > 0 ? sql`WHERE NOT list_contains(${texts(excluded)}, item)` : raw('')}
  WINDOW w AS (PARTITION BY pid ORDER BY ts, id)
), sessions AS (
  SELECT pid, ts, id, item, next_item, sum(new_session) OVER (PARTITION BY pid ORDER BY ts, id ROWS UNBOUNDED PRECEDING) AS sid FROM gaps
), numbered AS (
  SELECT pid, sid, ts, item, row_number() OVER w AS idx, lag(item) OVER w AS prev, epoch_us(ts) - lag(epoch_us(ts)) OVER w AS gap_us
  FROM sessions WHERE item <> coalesce(next_item, '') WINDOW w AS (PARTITION BY pid, sid ORDER BY ts, id)
), started AS (
  SELECT *, ${startIdx} AS s FROM numbered WINDOW session AS (PARTITION BY pid, sid)
), pointed AS (
  SELECT *, ${endIdx} AS t FROM started WINDOW session AS (PARTITION BY pid, sid)
), limited AS (
  SELECT pid, sid, ts, ${pos} AS pos, ${item} AS item, prev, gap_us FROM pointed WHERE ${keep}
), steps AS (
  ${both
    // Around a "..." step the step before is the kept one, not the session's.
    ? raw('SELECT pid, sid, pos, item, lag(item) OVER w AS prev, epoch_us(ts) - lag(epoch_us(ts)) OVER w AS gap_us FROM limited WINDOW w AS (PARTITION BY pid, sid ORDER BY pos)')
    // A kept step past the first has the session's step before it kept too (the cut is one run of steps).
    : raw('SELECT pid, sid, pos, item, prev, gap_us FROM limited')}
)`;
}

/** Only edges reachable from a first step (1_…) through the answered edges, as PostHog keeps. */
function reachable(links: PathsLink[]): PathsLink[] {
  const next = new Map<string, string[]>();
  const stack: string[] = [];
  for (const l of links) {
    next.set(l.source, [...(next.get(l.source) ?? []), l.target]);
    if (l.source.startsWith('1_')) stack.push(l.source);
  }
  const seen = new Set<string>();
  while (stack.length > 0) {
    const node = stack.pop()!;
    seen.add(node);
    for (const target of next.get(node) ?? []) if (!seen.has(target)) stack.push(target);
  }
  return links.filter((l) => seen.has(l.source));
}

export function planPaths(query: PathsQuery, ctx: PlanContext): Plan<PathsResult> {
  const filter: Filter = query.pathsFilter ?? {};
  const weights: Sql[] = [];
  if (filter.minEdgeWeight) weights.push(sql`count(*) >= ${int(filter.minEdgeWeight)}`);
  if (filter.maxEdgeWeight) weights.push(sql`count(*) <= ${int(filter.maxEdgeWeight)}`);
  const r = resolveRange(query.dateRange, 'day', ctx);
  const statement = sql`WITH ${pathStepsSql(query, ctx)}
SELECT (pos - 1)::VARCHAR || '_' || prev AS source, pos::VARCHAR || '_' || item AS target, count(*) AS value, avg(gap_us) / 1000.0 AS ms
FROM steps WHERE pos > 1 GROUP BY source, target ${weights.length > 0 ? sql`HAVING ${and(weights)}` : raw('')}
ORDER BY value DESC, source, target LIMIT ${int(filter.edgeLimit || EDGE_LIMIT_DEFAULT)}`;
  const both = !!filter.startPoint && !!filter.endPoint;
  const funnelPaths = funnelPathsText(query, ctx);
  return {
    statements: [statement],
    hogql: pathsSelect({
      filter, properties: query.properties, fromUs: r.fromUs, toUs: r.toUs, valueSets: ctx.valueSets, hogqlItem: pathsHogQLItem(filter),
      pageviewItem: itemOf(filter, '$pageview'), screenItem: itemOf(filter, '$screen'), start: pointOf(filter.startPoint, both), end: pointOf(filter.endPoint, both),
      groupings: groupingPatterns(filter), stepLimit: filter.stepLimit || STEP_LIMIT_DEFAULT, edgeLimit: filter.edgeLimit || EDGE_LIMIT_DEFAULT, sessionGapSeconds: SESSION_GAP_US / 1_000_000,
      funnel: funnelPaths,
    }),
    shape([rows]) {
      const links = rows.map((row) => ({ source: String(row.source), target: String(row.target), value: toNumber(row.value), average_conversion_time: toNumber(row.ms) }));
      return { results: reachable(links), dateFrom: isoWithOffset(r.fromLocal, r.segments), dateTo: isoWithOffset(r.toLocal, r.segments) };
    },
  };
}

/**
 * The persons behind a paths chart (PostHog's paths actors): each person with a session path
 * step matching the keys, and how many such steps. pathDropoffKey: the step ("n_item") a
 * session path ends at (the other keys are then not read); else pathStartKey: the step an edge
 * leaves, pathEndKey: the step it (or a path) reaches; none: every step.
 */
export function pathsActors(query: PathsQuery, ctx: PlanContext): CellActors {
  const filter: Filter = query.pathsFilter ?? {};
  const key = (pos: string, item: string) => sql`${raw(pos)}::VARCHAR || '_' || ${raw(item)}`;
  const where: Sql[] = [];
  if (filter.pathDropoffKey) {
    where.push(sql`pos = last_pos AND ${key('pos', 'item')} = ${filter.pathDropoffKey}`);
  } else {
    if (filter.pathStartKey) where.push(sql`pos > 1 AND ${key('(pos - 1)', 'prev')} = ${filter.pathStartKey}`);
    if (filter.pathEndKey) where.push(sql`${key('pos', 'item')} = ${filter.pathEndKey}`);
  }
  const statement = sql`WITH ${pathStepsSql(query, ctx)}
SELECT pid::VARCHAR AS actor, count(*) AS event_count
FROM (SELECT *, max(pos) OVER (PARTITION BY pid, sid) AS last_pos FROM steps)
WHERE ${and(where.length > 0 ? where : [raw('TRUE')])} GROUP BY pid`;
  return { sql: statement, groupType: null, eventCount: true, appearances: false };
}
