// EventsQuery → one statement: the selected HogQL expressions over the project's events in
// [after, before) (default: the last 24 hours, up to 5 s from now, as PostHog), filtered by
// event, properties and `where`, grouped by the plain columns when any column aggregates,
// ordered (default newest first), one row past `limit` read to tell whether there is more.
import type { EventsQuery } from '../schemas.js';
import { eventsFrom, propertyContext, queryAction, queryPropertiesWhere, needsPersons, type Plan, type PlanContext } from './context.js';
import { actionPropertyLists, actionSql } from './actions.js';
import { parseInstant } from './dates.js';
import { translate } from './hogql-expr.js';
import { hogqlCohorts } from './cohort-people.js';
import type { Decode, ParsedEventsQuery, Translated } from './hogql-types.js';
import { QueryError } from './errors.js';
import { and, int, join, raw, sql, text, timestamp, type Sql } from './sql.js';
import { DEFAULT_PAGE_ROWS, type PagedRows } from './paged-rows.js';
import { instantText } from './result-time.js';

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

function decode(v: unknown, how: Decode, zone: string): unknown {
  if (v === null || v === undefined) return null;
  switch (how) {
    case 'plain':
      return typeof v === 'bigint' ? Number(v) : v;
    case 'json':
      return JSON.parse(String(v));
    case 'timestamp':
      return instantText(Number(v), zone);
    case 'star': {
      const o = JSON.parse(String(v)) as Record<string, unknown>;
      return { ...o, timestamp: instantText(Number(o.timestamp), zone), elements_chain: '' };
    }
  }
}

export function planEventsQuery(query: EventsQuery, ctx: PlanContext, parsed: ParsedEventsQuery): Plan<EventsQueryResult> {
  const properties = propertyContext(ctx);
  const env = { zone: ctx.zone, actions: ctx.actions, properties, cohorts: hogqlCohorts(properties), propertyTypes: ctx.propertyTypes };
  const columns: Translated[] = parsed.select.map((e, i) => translate(e, `select.${i}`, env));
  const conditions: Translated[] = parsed.where.map((e, i) => translate(e, `where.${i}`, env));
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
  const order: Sql[] = parsed.orderBy.map((o, i) => {
    const t = translate(o.expr as never, `orderBy.${i}`, env);
    // Grouped rows have no single value of a column that is neither aggregated nor a group key.
    if (aggregated && !t.aggregate && !parsed.select.some((s, k) => !columns[k].aggregate && sameExpression(s, o.expr))) {
      throw new QueryError(`${query.orderBy?.[i] ?? ''} is not under an aggregate function and not in the GROUP BY keys: select it, or order by an aggregate`, `orderBy.${i}`);
    }
    const dir = raw(o.order === 'DESC' ? 'DESC' : 'ASC');
    if (t.decode === 'timestamp') return sql`${t.asText} ${dir}`;
    // A property orders as a number when it reads as one, else as text.
    if (t.decode === 'json') return sql`${t.asNumber} ${dir}, ${t.asText} ${dir}`;
    return sql`${t.sql} ${dir}`;
  });
  if (order.length === 0 && !aggregated) order.push(raw('e.timestamp DESC'));
  // Grouped without an order: by count() when selected, else by the first aggregate, descending (PostHog's).
  if (order.length === 0 && aggregated) {
    const counted = query.select.findIndex((s) => s.replace(/\s+/g, '') === 'count()');
    order.push(raw(`${(counted !== -1 ? counted : columns.findIndex((c) => c.aggregate)) + 1} DESC`));
  }
  const persons = needsPersons(ctx, query.properties, query.fixedProperties, ...(action ? actionPropertyLists(action) : []))
    || [...columns, ...conditions].some((c) => c.persons);
  const groupBy = aggregated ? columns.map((c, i) => (c.aggregate ? null : raw(String(i + 1)))).filter((x): x is Sql => x !== null) : [];

  const statement = sql`SELECT ${join(columns.map((c, i) => sql`${c.sql} AS ${raw(`c${i}`)}`), ', ')}
FROM ${eventsFrom(persons)} WHERE ${and(where)}${groupBy.length ? sql` GROUP BY ${join(groupBy, ', ')}` : raw('')}${having.length ? sql` HAVING ${and(having)}` : raw('')}${order.length ? sql` ORDER BY ${join(order, ', ')}` : raw('')}
LIMIT ${int(limit + 1)} OFFSET ${int(offset)}`;

  return {
    statements: [statement],
    shape([rows]) {
      const results = rows.slice(0, limit).map((r) => columns.map((c, i) => decode(r[`c${i}`], c.decode, ctx.zone)));
      return { results, columns: query.select, types: columns.map((c) => c.type), hasMore: rows.length > limit, limit, offset };
    },
  };
}
