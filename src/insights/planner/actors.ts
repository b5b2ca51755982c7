// ActorsQuery → one statement: the actors of the source's cell (planner/cells.ts; without a
// source, the project's persons), each joined to its person (or group) row, filtered by the
// query's person properties and `search`, ordered, one row past `limit` read to tell
// whether there is more. The selected columns are shaped from the row: `actor` (also
// `person`, `group`) is PostHog's actor object.
import type { ActorsQuery, InsightActorsSource } from '../schemas.js';
import { COHORT_FILTER_TYPES } from '../../matching/index.js';
import type { Cell, CellActors } from './cells.js';
import { propertyContext, toNumber, type Plan, type PlanContext, type Row } from './context.js';
import { QueryError } from './errors.js';
import { funnelTrendsActors } from './funnel-trends.js';
import { funnelActors } from './funnels.js';
import { lifecycleActors } from './lifecycle.js';
import { pathsActors } from './paths.js';
import { leaves, pointer, propertiesSql, type Properties } from './properties.js';
import { retentionActors } from './retention.js';
import { and, int, join, raw, sql, text, type Sql } from './sql.js';
import { stickinessActors } from './stickiness.js';
import { trendsActors } from './trends-actors.js';
import { DEFAULT_PAGE_ROWS, type PagedRows } from './paged-rows.js';

export type ActorsResult = PagedRows;

function cellOf(source: InsightActorsSource): Cell {
  if (source.kind === 'FunnelsActorsQuery') {
    return {
      series: 0, day: null, breakdown: source.funnelStepBreakdown ?? null, previous: false, interval: null, status: null, funnelStep: source.funnelStep ?? null,
      funnelTrends: { entrance: source.funnelTrendsEntrancePeriodStart ?? null, dropOff: source.funnelTrendsDropOff ?? null },
    };
  }
  return {
    series: source.series ?? 0, day: source.day ?? null, breakdown: source.breakdown ?? null, previous: source.compare === 'previous',
    interval: source.interval ?? null, status: source.status ?? null, funnelStep: null, funnelTrends: null,
  };
}

// What names a cell of each insight kind; another of these fields, given, is refused (it would be ignored).
const CELL_FIELDS: Record<string, ReadonlySet<string>> = {
  TrendsQuery: new Set(['series', 'day', 'breakdown', 'compare']),
  FunnelsQuery: new Set(['funnelStep', 'funnelStepBreakdown', 'breakdown']),
  RetentionQuery: new Set(['interval', 'breakdown']),
  StickinessQuery: new Set(['series', 'day', 'compare']),
  LifecycleQuery: new Set(['day', 'status']),
  // A paths chart names its edge or node by its source's pathStartKey, pathEndKey, pathDropoffKey.
  PathsQuery: new Set(),
};
const ALL_CELL_FIELDS = ['series', 'day', 'breakdown', 'compare', 'interval', 'status', 'funnelStep', 'funnelStepBreakdown'];

function cellActors(source: InsightActorsSource, ctx: PlanContext): CellActors {
  const insight = source.source;
  const given = source as unknown as Record<string, unknown>;
  for (const field of ALL_CELL_FIELDS) {
    if (given[field] !== null && given[field] !== undefined && !CELL_FIELDS[insight.kind].has(field)) {
      throw new QueryError(`${field} names no cell of a ${insight.kind}: ${[...CELL_FIELDS[insight.kind]].join(', ')} do`, `source.${field}`);
    }
  }
  const cell = cellOf(source);
  switch (insight.kind) {
    case 'TrendsQuery': return trendsActors(insight, ctx, cell);
    case 'FunnelsQuery': {
      if (insight.funnelsFilter?.funnelVizType === 'trends') return funnelTrendsActors(insight, ctx, cell);
      // An InsightActorsQuery names a funnel's step as a FunnelsActorsQuery does.
      return funnelActors(insight, ctx, { ...cell, funnelStep: source.funnelStep ?? null, breakdown: source.funnelStepBreakdown ?? cell.breakdown });
    }
    case 'RetentionQuery': return retentionActors(insight, ctx, cell);
    case 'StickinessQuery': return stickinessActors(insight, ctx, cell);
    case 'LifecycleQuery': return lifecycleActors(insight, ctx, cell);
    case 'PathsQuery': return pathsActors(insight, ctx);
  }
}

interface Column {
  /** The row's value as the response gives it. */
  value(r: Row): unknown;
  type: string;
  /** How it orders, when it can. */
  order?: Sql;
}

const iso = (v: unknown) => (v === null || v === undefined ? null : new Date(toNumber(v)).toISOString());
const json = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));

/** A selected column (or one orderBy names) over the actor's row; `attr` names it in a 400. */
function column(name: string, actors: CellActors, attr: string): Column {
  const groups = actors.groupType !== null;
  const property = /^(?:person\.|group\.)?properties\.(.+)$/.exec(name);
  if (property) {
    const path = text(pointer(property[1]));
    return { value: (r) => json(r[`p:${property[1]}`]), type: 'String', order: sql`json_extract_string(a_properties, ${path})` };
  }
  switch (name) {
    case 'actor': case 'person': case 'group':
      if ((name === 'group') !== groups && name !== 'actor') throw new QueryError(`The actors are ${groups ? 'groups' : 'persons'}: select actor${groups ? ' or group' : ' or person'}`, attr);
      return { value: (r) => actorObject(r, groups, actors.groupType), type: 'Tuple' };
    case 'id': case 'person.id': case 'group_key':
      return { value: (r) => r.a_id, type: groups ? 'String' : 'UUID', order: raw('a_id') };
    case 'created_at': case 'person.created_at':
      return { value: (r) => iso(r.a_created_at), type: "DateTime64(6, 'UTC')", order: raw('a_created_at') };
    case 'is_identified': case 'person.is_identified':
      if (groups) break;
      return { value: (r) => r.a_is_identified === true, type: 'Boolean', order: raw('a_is_identified') };
    case 'event_count':
      if (!actors.eventCount) break;
      return { value: (r) => toNumber(r.event_count), type: 'UInt64', order: raw('event_count') };
    case 'appearances':
      if (!actors.appearances) break;
      return { value: (r) => (r.appearances as unknown[]).map(toNumber), type: 'Array(Int64)', order: raw('len(appearances)') };
    // Recordings of the actors' sessions: hedgerow stores none.
    case 'matched_recordings':
      return { value: () => [], type: 'Array(Tuple)' };
  }
  throw new QueryError(`Column ${JSON.stringify(name)} is not supported by hedgerow in an ActorsQuery${actors.eventCount ? '' : ' of this source'}`, attr);
}

function actorObject(r: Row, groups: boolean, groupType: number | null): Record<string, unknown> {
  const properties = json(r.a_properties) ?? {};
  // PostHog's group actor carries its properties twice: `group_properties`, and `properties` for its frontend.
  if (groups) return { type: 'group', id: r.a_id, group_key: r.a_id, group_type_index: groupType, created_at: iso(r.a_created_at), properties, group_properties: properties };
  return {
    type: 'person', id: r.a_id, distinct_ids: ((r.a_distinct_ids as unknown[] | null) ?? []).map(String), properties,
    created_at: iso(r.a_created_at), is_identified: r.a_is_identified === true,
  };
}

// An orderBy entry: a column and its direction.
function orderOf(entry: string, actors: CellActors, attr: string): Sql {
  const m = /^\s*(.+?)(?:\s+(ASC|DESC))?\s*$/i.exec(entry)!;
  const c = column(m[1], actors, attr);
  if (c.order === undefined) throw new QueryError(`Cannot order by ${m[1]}`, attr);
  return sql`${c.order} ${raw((m[2] ?? 'ASC').toUpperCase())} NULLS LAST`;
}

// The query's property filters, on the actor's person (person properties and cohorts).
function filtersOf(query: ActorsQuery, actors: CellActors, ctx: PlanContext): Sql[] {
  const out: Sql[] = [];
  for (const key of ['properties', 'fixedProperties'] as const) {
    const list = query[key] as Properties | null | undefined;
    if (list === null || list === undefined) continue;
    const other = leaves(list).find((f) => (f.type ?? 'event') !== 'person' && !COHORT_FILTER_TYPES.has(f.type ?? ''));
    if (other !== undefined || (actors.groupType !== null && leaves(list).length > 0)) {
      throw new QueryError(`An ActorsQuery filters its persons by person properties and cohorts${other ? `, not ${other.type ?? 'event'} filters` : ''}`, key);
    }
    out.push(propertiesSql(list, propertyContext(ctx), key));
  }
  return out;
}

export function planActors(query: ActorsQuery, ctx: PlanContext): Plan<ActorsResult> {
  const project = ctx.projectId;
  const actors: CellActors = query.source
    ? cellActors(query.source, ctx)
    : { sql: sql`SELECT id::VARCHAR AS actor FROM persons WHERE project = ${project}`, groupType: null, eventCount: false, appearances: false };
  const groups = actors.groupType !== null;
  const defaults = query.source ? ['actor', ...(actors.eventCount ? ['event_count'] : []), ...(actors.appearances ? ['appearances'] : [])] : ['person', 'id', 'created_at'];
  const select = query.select ?? defaults;
  const columns = select.map((name, i) => column(name, actors, `select.${i}`));
  const order = (query.orderBy ?? []).map((o, i) => orderOf(o, actors, `orderBy.${i}`));
  if (order.length === 0) {
    if (actors.eventCount) order.push(raw('event_count DESC'));
    else if (actors.appearances) order.push(raw('len(appearances) DESC'));
    else order.push(raw('a_created_at DESC NULLS LAST'));
  }
  order.push(raw('a_id'));
  const limit = query.limit ?? DEFAULT_PAGE_ROWS;
  const offset = query.offset ?? 0;

  // The actor's row: its person (persons joined as `p`, the cell row as `e` with its
  // person_id, so person and cohort filters read them as over events) or its group.
  const where: Sql[] = [];
  const search = query.search?.trim();
  let from: Sql;
  if (groups) {
    from = sql`SELECT e.*, e.actor AS a_id, epoch_ms(g.created_at) AS a_created_at, g.properties::VARCHAR AS a_properties, g.properties AS props
FROM (${actors.sql}) e LEFT JOIN groups g ON g.project = ${project} AND g.type_index = ${int(actors.groupType!)} AND g.key = e.actor`;
    if (search) where.push(sql`(contains(lower(coalesce(json_extract_string(g.properties, '$.name'), '')), lower(${text(search)})) OR contains(lower(e.actor), lower(${text(search)})))`);
  } else {
    from = sql`SELECT e.*, e.actor AS a_id, epoch_ms(p.created_at) AS a_created_at, p.properties::VARCHAR AS a_properties, coalesce(p.is_identified, FALSE) AS a_is_identified, p.properties AS props
FROM (SELECT c.*, c.actor::UUID AS person_id FROM (${actors.sql}) c) e LEFT JOIN persons p ON p.project = ${project} AND p.id = e.person_id`;
    if (search) {
      // PostHog's person search: email or name containing it, or the person's id or one of its distinct ids.
      const s = text(search);
      where.push(sql`(contains(lower(coalesce(json_extract_string(p.properties, '$.email'), '')), lower(${s})) OR contains(lower(coalesce(json_extract_string(p.properties, '$.name'), '')), lower(${s}))
  OR e.actor = lower(${s}) OR EXISTS (SELECT 1 FROM person_distinct_ids d WHERE d.project = ${project} AND d.person_id = e.person_id AND d.distinct_id = ${s}))`);
    }
    where.push(...filtersOf(query, actors, ctx));
  }
  const properties = [...new Set(select.map((s) => /^(?:person\.|group\.)?properties\.(.+)$/.exec(s)?.[1]).filter((k): k is string => k !== undefined))];
  const propertyCols = properties.map((k) => sql`, json_extract(props, ${text(pointer(k))})::VARCHAR AS ${raw(`"p:${k.replace(/"/g, '""')}"`)}`);
  const row = sql`${from} WHERE ${and(where.length ? where : [raw('TRUE')])}`;
  const page = sql`SELECT * EXCLUDE (props)${join(propertyCols, '')} FROM (${row})
ORDER BY ${join(order, ', ')} LIMIT ${int(limit + 1)} OFFSET ${int(offset)}`;
  // The page's persons' distinct ids, read for those only (the order again: a subquery's is not kept).
  const statement = groups ? page : sql`SELECT x.*, (SELECT list(d.distinct_id ORDER BY d.distinct_id) FROM person_distinct_ids d WHERE d.project = ${project} AND d.person_id = x.person_id) AS a_distinct_ids FROM (${page}) x ORDER BY ${join(order, ', ')}`;

  return {
    statements: [statement],
    shape([rows]) {
      const results = rows.slice(0, limit).map((r) => columns.map((c) => c.value(r)));
      return { results, columns: select, types: columns.map((c) => c.type), hasMore: rows.length > limit, limit, offset };
    },
  };
}
