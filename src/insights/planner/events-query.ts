// EventsQuery → one statement: the selected HogQL expressions over the project's events in
// [after, before) (default: the last 24 hours, up to 5 s from now, as PostHog), filtered by
// event, properties and `where`, grouped by the plain columns when any column aggregates,
// ordered (default newest first), one row past `limit` read to tell whether there is more.
// Each expression is compiled by the HogQL compiler over the planners' events row (`e`, its
// person `p`); `*` and person_display_name are PostHog's EventsQuery columns of their own.
import type { EventsQuery } from '../schemas.js';
import { eventsFrom, propertyContext, queryAction, queryPropertiesWhere, needsPersons, type Plan, type PlanContext } from './context.js';
import { actionPropertyLists, actionSql } from './actions.js';
import { parseInstant } from './dates.js';
import { hogqlCohorts } from './cohort-people.js';
import { compileRowExpression, type RowExpression } from './hogql/compile.js';
import { chType, HogQLError, type CompileContext, type Expr, type HogNode } from './hogql/expr.js';
import type { HogExpr, ParsedEventsQuery } from './hogql-types.js';
import { QueryError } from './errors.js';
import { and, int, join, raw, sql, text, timestamp, type Sql } from './sql.js';
import { DEFAULT_PAGE_ROWS, type PagedRows } from './paged-rows.js';
import { instantText } from './result-time.js';
import { resultValue } from './result-value.js';

export type EventsQueryResult = PagedRows;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

// Whether two parsed expressions are the same, whatever their positions in their texts.
function sameExpression(a: unknown, b: unknown): boolean {
  const bare = (x: unknown): unknown => {
    if (Array.isArray(x)) return x.map(bare);
    if (typeof x !== 'object' || x === null) return x;
    return Object.fromEntries(Object.entries(x).filter(([k]) => k !== 'start' && k !== 'end').sort(([p], [q]) => (p < q ? -1 : 1)).map(([k, v]) => [k, bare(v)]));
  };
  return JSON.stringify(bare(a)) === JSON.stringify(bare(b));
}

/** A column of the answer: what it selects, how its value reads back, and its type. */
interface Column {
  sql: Sql;
  read(v: unknown): unknown;
  type: string;
  aggregate: boolean;
  persons: boolean;
}

const jsonValue = (v: unknown) => (v === null || v === undefined ? null : JSON.parse(String(v)));

// `*`: the event as PostHog's EventsQuery gives it, its properties parsed.
const STAR = raw(`json_object('uuid', e.uuid::VARCHAR, 'event', e.event, 'properties', e.properties, 'timestamp', epoch_us(e.timestamp), 'team_id', e.project, 'distinct_id', e.distinct_id, 'person_id', e.person_id::VARCHAR)::VARCHAR`);

// PostHog's person_display_name: the person's email, name or username (its default
// display properties), else the distinct id; with the person's id.
const DISPLAY_NAME = raw(`json_object('display_name', coalesce(${['email', 'name', 'username'].map((k) => `json_extract_string(p.properties, '/${k}')`).join(', ')}, e.distinct_id), 'id', e.person_id::VARCHAR)::VARCHAR`);

function fieldNamed(node: HogExpr, name: string): boolean {
  const chain = node.chain as unknown[] | undefined;
  return node.node === 'Field' && chain?.length === 1 && chain[0] === name;
}

export function planEventsQuery(query: EventsQuery, ctx: PlanContext, parsed: ParsedEventsQuery): Plan<EventsQueryResult> {
  const properties = propertyContext(ctx);
  const compileContext: CompileContext = {
    projectId: ctx.projectId, timezone: ctx.zone, weekStart: ctx.weekStart, values: {}, variables: {}, filters: null,
    actions: ctx.actions, properties, cohorts: hogqlCohorts(properties), propertyTypes: ctx.propertyTypes,
  };
  const compiled = (node: HogExpr, source: string, attr: string): RowExpression => {
    try {
      return compileRowExpression(node as HogNode, source, compileContext);
    } catch (err) {
      if (err instanceof HogQLError) throw new QueryError(err.message, attr);
      throw err;
    }
  };
  const column = (node: HogExpr, i: number): Column => {
    if (fieldNamed(node, '*')) return { sql: STAR, read: (v) => star(v, ctx.zone), type: 'Tuple', aggregate: false, persons: false };
    if (fieldNamed(node, 'person_display_name')) return { sql: DISPLAY_NAME, read: jsonValue, type: 'Tuple', aggregate: false, persons: true };
    const { expr, persons } = compiled(node, query.select[i], `select.${i}`);
    return { ...answered(expr, ctx.zone), aggregate: expr.aggregate !== null, persons };
  };
  const condition = (node: HogExpr, i: number) => {
    const { expr, persons } = compiled(node, query.where?.[i] ?? '', `where.${i}`);
    return { sql: expr.type === 'Bool' ? expr.sql : sql`TRY_CAST(${expr.sql} AS BOOLEAN)`, aggregate: expr.aggregate !== null, persons };
  };
  const columns = parsed.select.map(column);
  const conditions = parsed.where.map(condition);
  // Conditions on aggregates filter the groups (HAVING), as PostHog moves them.
  const having = conditions.filter((c) => c.aggregate).map((c) => c.sql);
  const limit = query.limit ?? DEFAULT_PAGE_ROWS;
  const offset = query.offset ?? 0;
  const where: Sql[] = [sql`e.project = ${ctx.projectId}`];
  const after = query.after ?? '-24h';
  if (after !== 'all') where.push(sql`e.timestamp > ${timestamp(parseInstant(after, ctx, 'after') * 1000)}`);
  const before = query.before ? parseInstant(query.before, ctx, 'before') : ctx.nowMs + 5000;
  where.push(sql`e.timestamp < ${timestamp(before * 1000)}`);
  if (query.event) where.push(sql`e.event = ${query.event}`);
  const action = typeof query.actionId === 'number' ? queryAction(query.actionId, ctx, 'actionId') : null;
  if (action) where.push(actionSql(action, propertyContext(ctx), 'actionId'));
  if (query.personId) {
    if (!UUID.test(query.personId)) throw new QueryError('Must be a valid UUID.', 'personId');
    where.push(sql`e.person_id = ${text(query.personId)}::UUID`);
  }
  where.push(...queryPropertiesWhere(query.properties, ctx), ...queryPropertiesWhere(query.fixedProperties, ctx, 'fixedProperties'));
  for (const c of conditions) if (!c.aggregate) where.push(c.sql);

  const aggregated = columns.some((c) => c.aggregate);
  const aggregateWhere = conditions.findIndex((c) => c.aggregate);
  if (aggregateWhere !== -1 && !aggregated) {
    throw new QueryError('Aggregations are not allowed in where when no select column aggregates: select an aggregate, then where filters the groups', `where.${aggregateWhere}`);
  }
  const orders = parsed.orderBy.map((o, i) => ({ o, i, ...compiled(o.expr as HogExpr, query.orderBy?.[i] ?? '', `orderBy.${i}`) }));
  const order: Sql[] = orders.map(({ o, i, expr: t }) => {
    // Grouped rows have no single value of a column that is neither aggregated nor a group key.
    if (aggregated && t.aggregate === null && !parsed.select.some((s, k) => !columns[k].aggregate && sameExpression(s, o.expr))) {
      throw new QueryError(`${query.orderBy?.[i] ?? ''} is not under an aggregate function and not in the GROUP BY keys: select it, or order by an aggregate`, `orderBy.${i}`);
    }
    const dir = raw(o.order === 'DESC' ? 'DESC' : 'ASC');
    // A property as the event carried it orders as a number when it reads as one, else as text.
    if (t.json !== undefined && t.type === 'String') return sql`TRY_CAST(${t.sql} AS DOUBLE) ${dir}, ${t.sql} ${dir}`;
    return sql`${t.sql} ${dir}`;
  });
  if (order.length === 0 && !aggregated) order.push(raw('e.timestamp DESC'));
  // Grouped without an order: by count() when selected, else by the first aggregate, descending (PostHog's).
  if (order.length === 0 && aggregated) {
    const counted = query.select.findIndex((s) => s.replace(/\s+/g, '') === 'count()');
    order.push(raw(`${(counted !== -1 ? counted : columns.findIndex((c) => c.aggregate)) + 1} DESC`));
  }
  const persons = needsPersons(ctx, query.properties, query.fixedProperties, ...(action ? actionPropertyLists(action) : []))
    || [...columns, ...conditions, ...orders].some((c) => c.persons);
  const groupBy = aggregated ? columns.map((c, i) => (c.aggregate ? null : raw(String(i + 1)))).filter((x): x is Sql => x !== null) : [];

  const statement = sql`SELECT ${join(columns.map((c, i) => sql`${c.sql} AS ${raw(`c${i}`)}`), ', ')}
FROM ${eventsFrom(persons)} WHERE ${and(where)}${groupBy.length ? sql` GROUP BY ${join(groupBy, ', ')}` : raw('')}${having.length ? sql` HAVING ${and(having)}` : raw('')}${order.length ? sql` ORDER BY ${join(order, ', ')}` : raw('')}
LIMIT ${int(limit + 1)} OFFSET ${int(offset)}`;

  return {
    statements: [statement],
    shape([rows]) {
      const results = rows.slice(0, limit).map((r) => columns.map((c, i) => c.read(r[`c${i}`])));
      return { results, columns: query.select, types: columns.map((c) => c.type), hasMore: rows.length > limit, limit, offset };
    },
  };
}

// A compiled column as EventsQuery answers it: a property as the event carried it (its JSON
// value), an instant on its zone's wall clock to the microsecond, anything else as HogQLQuery
// gives it. Types without Nullable, as EventsQuery has always given them.
function answered(e: Expr, zone: string): Pick<Column, 'sql' | 'read' | 'type'> {
  const type = chType({ ...e, nullable: false }, zone);
  if (e.json !== undefined && e.type === 'String') return { sql: e.json, read: jsonValue, type };
  if (e.type === 'DateTime') return { sql: sql`epoch_us(${e.sql})`, read: (v) => (v === null || v === undefined ? null : instantText(Number(v), e.zone ?? zone)), type };
  return { sql: e.sql, read: (v) => resultValue(v, e, zone), type };
}

function star(v: unknown, zone: string): unknown {
  if (v === null || v === undefined) return null;
  const o = JSON.parse(String(v)) as Record<string, unknown>;
  return { ...o, timestamp: instantText(Number(o.timestamp), zone), elements_chain: '' };
}
