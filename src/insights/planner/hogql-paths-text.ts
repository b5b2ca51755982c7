// A PathsQuery written as HogQL (its `hogql` field), step for step as planner/paths.ts
// computes it, so the text run as a HogQLQuery gives the chart's edges, their weights and
// average conversion times: each person's events become path items, split into sessions
// at a 30-minute gap, repeats folded, cut to the start and end points and the step limit;
// consecutive items are edges, weighed, ordered and limited; then only the edges reachable
// from a first step, found level by level (an edge leaves position k for k + 1): the
// reachable nodes as a list, each level adding the targets of the edges leaving it. Pure.
import type { PathsQuery } from '../schemas.js';
import { iso, literal, propertiesText } from './hogql-text.js';
import type { Properties, ValueSets } from './properties.js';

type Filter = NonNullable<PathsQuery['pathsFilter']>;

export interface PathsText {
  filter: Filter;
  properties: unknown;
  fromUs: number;
  toUs: number;
  valueSets: ValueSets;
  /** The "hogql" event type's expression (pathsHogQLExpression), when it is asked for. */
  hogqlItem: string | null;
  /** Whether pageviews' and screens' items are their URL and screen name. */
  pageviewItem: boolean;
  screenItem: boolean;
  /** The start and end points as the planner matches them. */
  start: string | null;
  end: string | null;
  /** Each path grouping with the pattern that matches it. */
  groupings: { name: string; pattern: string }[];
  /** The step limit and edge limit the planner applies (its defaults resolved). */
  stepLimit: number;
  edgeLimit: number;
  /** A gap this long (seconds) or longer starts a new session path. */
  sessionGapSeconds: number;
  /** funnelPathsFilter's persons and events (hogql-funnel-paths-text.ts), when it is given. */
  funnel: { ctes: string[]; where: string } | null;
}

const texts = (values: readonly string[]) => values.map(literal).join(', ');

// The event's item before cleaning: URL (one trailing slash dropped), screen name, the
// "hogql" expression or the event's name; '' when absent.
function rawItem(s: PathsText): string {
  let item = s.hogqlItem === null ? 'event' : `toString(${s.hogqlItem})`;
  if (s.pageviewItem) item = `if(event = '$pageview', replaceRegexpOne(coalesce(properties['$current_url'], ''), '(.)/$', ${literal('\\1')}), ${item})`;
  if (s.screenItem) item = `if(event = '$screen', properties['$screen_name'], ${item})`;
  return `coalesce(${item}, '')`;
}

function cleaned(s: PathsText, item: string): string {
  for (const rule of s.filter.localPathCleaningFilters ?? []) item = `replaceRegexpAll(${item}, ${literal(rule.regex)}, ${literal(rule.alias)})`;
  if (s.groupings.length === 0) return item;
  return `multiIf(${s.groupings.map((g) => `match(${item}, ${literal(g.pattern)}), ${literal(g.name)}`).join(', ')}, ${item})`;
}

function typesWhere(filter: Filter): string[] {
  const include = filter.includeEventTypes ?? [];
  const types: string[] = [];
  if (include.includes('$pageview')) types.push("event = '$pageview'");
  if (include.includes('$screen')) types.push("event = '$screen'");
  if (include.includes('custom_event')) types.push("NOT startsWith(event, '$')");
  return types.length > 0 ? [`(${types.join(' OR ')})`] : [];
}

/** Which compacted steps (idx) are kept, at which position, under which item (planner/paths.ts's cut). */
function cut(filter: Filter, limit: number): { keep: string; pos: string; item: string } {
  if (filter.startPoint && filter.endPoint) {
    const h = Math.floor(limit / 2);
    const f = '(idx - s + 1)';
    const len = '(t - s + 1)';
    return {
      keep: `s IS NOT NULL AND t IS NOT NULL AND idx >= s AND idx <= t AND (${len} <= ${limit} OR ${f} <= ${h + 1} OR ${f} > ${len} - ${h})`,
      pos: `if(${len} <= ${limit} OR ${f} <= ${h + 1}, ${f}, ${f} - ${len} + ${2 * h + 1})`,
      item: `if(${len} > ${limit} AND ${f} = ${h + 1}, '...', item)`,
    };
  }
  if (filter.startPoint) return { keep: `s IS NOT NULL AND idx >= s AND idx < s + ${limit}`, pos: 'idx - s + 1', item: 'item' };
  if (filter.endPoint) return { keep: `t IS NOT NULL AND idx <= t AND idx > t - ${limit}`, pos: `idx - greatest(t - ${limit}, 0)`, item: 'item' };
  return { keep: `idx <= ${limit}`, pos: 'idx', item: 'item' };
}

export function pathsSelect(s: PathsText): string {
  const f = s.filter;
  const { start, end } = s;
  const where = [`timestamp >= toDateTime(${literal(iso(s.fromUs))})`, `timestamp < toDateTime(${literal(iso(s.toUs))})`];
  if (s.properties !== null && s.properties !== undefined) where.push(propertiesText(s.properties as Properties, s.valueSets));
  where.push(...typesWhere(f));
  if (s.funnel !== null) where.push(s.funnel.where);
  const excluded = (f.includeEventTypes ?? []).length > 0 ? f.excludeEvents ?? [] : [];
  const { keep, pos, item } = cut(f, s.stepLimit);
  const ordered = 'PARTITION BY pid ORDER BY ts, id';
  const session = 'PARTITION BY pid, sid ORDER BY ts, id';
  const startIdx = start === null ? 'NULL' : `min(if(item = ${literal(start)}, idx, NULL)) OVER (PARTITION BY pid, sid)`;
  const endIdx = end === null ? 'NULL' : `min(if(item = ${literal(end)} AND idx >= coalesce(s, 1), idx, NULL)) OVER (PARTITION BY pid, sid)`;
  const weights = [f.minEdgeWeight ? `count() >= ${f.minEdgeWeight}` : '', f.maxEdgeWeight ? `count() <= ${f.maxEdgeWeight}` : ''].filter(Boolean);
  // Reachable nodes level by level, in one list per level (each level reads the one before once).
  const levels = Array.from({ length: s.stepLimit - 1 }, (_, i) => i + 2);
  const reach = levels.map((k) => `level_${k} AS (SELECT links, arrayConcat(nodes_${k - 1}, arrayMap(e -> e.2, arrayFilter(e -> has(nodes_${k - 1}, e.1), links))) AS nodes_${k} FROM level_${k - 1})`);
  const funnel = s.funnel === null ? '' : `${s.funnel.ctes.join(',\n')},\n`;
  const events = s.funnel === null ? 'events' : 'events JOIN funnel_actors fa ON fa.fpid = person_id';
  return `WITH ${funnel}raw_items AS (SELECT person_id AS pid, timestamp AS ts, uuid AS id, ${rawItem(s)} AS item0 FROM ${events} WHERE ${where.join(' AND ')}),
items AS (SELECT pid, ts, id, ${cleaned(s, 'item0')} AS item FROM raw_items),
gaps AS (SELECT pid, ts, id, item, if(toUnixTimestamp64Micro(ts) - lagInFrame(toUnixTimestamp64Micro(ts)) OVER (${ordered}) >= ${s.sessionGapSeconds * 1_000_000}, 1, 0) AS new_session FROM items${excluded.length > 0 ? ` WHERE item NOT IN (${texts(excluded)})` : ''}),
sessions AS (SELECT pid, ts, id, item, sum(new_session) OVER (${ordered} ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS sid FROM gaps),
compact AS (SELECT pid, sid, ts, id, item FROM (SELECT pid, sid, ts, id, item, leadInFrame(item) OVER (${session} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS next_item FROM sessions) WHERE item != coalesce(next_item, '')),
indexed AS (SELECT pid, sid, ts, item, row_number() OVER (${session}) AS idx FROM compact),
started AS (SELECT pid, sid, ts, item, idx, ${startIdx} AS s FROM indexed),
pointed AS (SELECT pid, sid, ts, item, idx, s, ${endIdx} AS t FROM started),
limited AS (SELECT pid, sid, ts, ${pos} AS pos, ${item} AS item FROM pointed WHERE ${keep}),
steps AS (SELECT pid, sid, pos, item, lagInFrame(item) OVER w AS prev, toUnixTimestamp64Micro(ts) - lagInFrame(toUnixTimestamp64Micro(ts)) OVER w AS gap_us FROM limited WINDOW w AS (PARTITION BY pid, sid ORDER BY pos ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
edges AS (SELECT concat(toString(pos - 1), '_', prev) AS source, concat(toString(pos), '_', item) AS target, count() AS value, avg(gap_us) / 1000.0 AS average_conversion_time FROM steps WHERE pos > 1 GROUP BY source, target${weights.length > 0 ? ` HAVING ${weights.join(' AND ')}` : ''} ORDER BY value DESC, source, target LIMIT ${s.edgeLimit}),
answered AS (SELECT groupArray(tuple(source, target, value, average_conversion_time)) AS links FROM edges),
level_1 AS (SELECT links, arrayFilter(x -> startsWith(x, '1_'), arrayMap(e -> e.1, links)) AS nodes_1 FROM answered),
${reach.join(',\n')}${reach.length > 0 ? ',' : ''}
reachable AS (SELECT arrayJoin(arrayFilter(e -> has(nodes_${s.stepLimit}, e.1), links)) AS link FROM level_${s.stepLimit})
SELECT link.1 AS source, link.2 AS target, link.3 AS value, link.4 AS average_conversion_time FROM reachable ORDER BY value DESC, source, target LIMIT 50000`;
}
