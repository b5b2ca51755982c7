// A parsed HogQL query (PostHog's AST, from @posthog/hogql-parser's select parser) compiled
// to one DuckDB statement. Pure: a tree in, SQL with bound parameters out.
//
// What keeps a query inside its project and inside the columnar store:
// - every table a query reads is one of three known tables, each read as a subquery that
//   keeps the project's rows (`(SELECT * FROM events WHERE project = $1) AS t1`), wherever
//   the table appears: FROM, every join, subquery, CTE and set query (a table CTE is compiled
//   once, as a DuckDB WITH of the SELECT defining it, named w1, w2…: its reads name it);
// - no user text becomes SQL text: tables, columns and aliases get generated names (t1, c0),
//   constants and property keys are bound parameters, functions are looked up in the
//   catalogue (./functions/) whose DuckDB names are its own;
// - the parser accepts one SELECT (or set of them): no statement of any other kind exists.
import { actionByReference, actionSql, actionUsesPersons, type ResolvedAction } from '../actions.js';
import { QueryError } from '../errors.js';
import { HOT_COLUMNS } from '../properties.js';
import { bool, float, int, join, raw, render, sql, text, timestamp, type Sql } from '../sql.js';
import { chType, cohortMembership, date, expr, fail, HogQLError, instant, isNumeric, NULL_EXPR, num, str, tupleSql, zoneSql, type CompileContext, type Expr, type HogNode } from './expr.js';
import { closestFunction, lookupFunction, MAX_BUILT } from './functions/index.js';
import { droppedGroupByModifier, missingField, missingFunction } from './unsupported.js';
import { EVENT_OWNER, PERSON_OWNER, propertyTypeOf, typedProperty, type PropertyOwner } from './property-types.js';

/** PostHog's defaults: rows returned without a LIMIT, and the most a LIMIT may ask for. */
export const DEFAULT_ROWS = 100;
export const MAX_ROWS = 50_000;

export interface CompiledColumn {
  name: string;
  type: string;
  expr: Expr;
}

export interface CompiledQuery {
  statement: Sql;
  columns: CompiledColumn[];
  /** Set when the query had no LIMIT: PostHog's paginator (one row past the limit tells hasMore). */
  paginated: { limit: number; offset: number } | null;
}

type TableName = 'events' | 'persons' | 'person_distinct_ids' | 'sessions' | 'groups' | 'cohort_people';
const TABLES: ReadonlySet<string> = new Set<TableName>(['events', 'persons', 'person_distinct_ids', 'sessions', 'groups', 'cohort_people']);
const STAR: Record<TableName, string[]> = {
  events: ['uuid', 'event', 'properties', 'timestamp', 'distinct_id', 'elements_chain', 'created_at', '$session_id', '$group_0', '$group_1', '$group_2', '$group_3', '$group_4'],
  persons: ['id', 'created_at', 'properties', 'is_identified'],
  groups: ['index', 'key', 'created_at', 'properties'],
  person_distinct_ids: ['distinct_id', 'person_id'],
  cohort_people: ['person_id', 'cohort_id'],
  sessions: ['session_id', 'distinct_id', '$start_timestamp', '$end_timestamp', '$session_duration', '$entry_current_url', '$end_current_url', '$pageview_count', '$autocapture_count', '$is_bounce'],
};

// A session's `$entry_<name>` fields read from its entry event's `<key>` property.
const ENTRY_PROPERTIES = [
  ['utm_source', 'utm_source'], ['utm_medium', 'utm_medium'], ['utm_campaign', 'utm_campaign'], ['utm_term', 'utm_term'], ['utm_content', 'utm_content'],
  ['gclid', 'gclid'], ['gad_source', 'gad_source'], ['fbclid', 'fbclid'],
] as const;

// A session (PostHog's sessions table, from events' $session_id): its columns as an aggregate
// of the project's events, each named `<prefix>x` (`session_x` when joined to events).
const SESSION_COLUMNS = [
  ['distinct_id', 'min(distinct_id)'], ['start', 'min(timestamp)'], ['end', 'max(timestamp)'],
  ['entry_url', "arg_min(current_url, timestamp) FILTER (WHERE current_url <> '' AND current_url <> 'null')"],
  ['exit_url', "arg_max(current_url, timestamp) FILTER (WHERE current_url <> '' AND current_url <> 'null')"],
  ['entry_path', "arg_min(pathname, timestamp) FILTER (WHERE pathname <> '' AND pathname <> 'null')"],
  ['exit_path', "arg_max(pathname, timestamp) FILTER (WHERE pathname <> '' AND pathname <> 'null')"],
  ['pageviews', "count(*) FILTER (WHERE event = '$pageview')"], ['autocaptures', "count(*) FILTER (WHERE event = '$autocapture')"],
  ['screens', "count(*) FILTER (WHERE event = '$screen')"], ['uniq_urls', 'count(DISTINCT current_url)'],
  ['urls', 'coalesce(list(DISTINCT current_url) FILTER (WHERE current_url IS NOT NULL), [])'],
  // The entry event's (the first with a URL, as the entry URL) referrer, host and campaign.
  ['entry_referring_domain', "arg_min(referring_domain, timestamp) FILTER (WHERE current_url <> '' AND current_url <> 'null')"],
  ['entry_host', "arg_min(host, timestamp) FILTER (WHERE current_url <> '' AND current_url <> 'null')"],
  ['exit_host', "arg_max(host, timestamp) FILTER (WHERE current_url <> '' AND current_url <> 'null')"],
  ...ENTRY_PROPERTIES.map(([name, key]) => [`entry_${name}`, `arg_min(json_extract_string(properties, '/${key}'), timestamp) FILTER (WHERE current_url <> '' AND current_url <> 'null')`] as const),
] as const;
// PostHog's bounce: no pageview → NULL; else not (more than one pageview, an autocapture, or 10 s or longer).
const SESSION_FIELDS: Record<string, (c: string) => [string, Expr['type'], boolean]> = {
  session_id: (c) => [`${c}session_id`, 'String', false], id: (c) => [`${c}session_id`, 'String', false],
  distinct_id: (c) => [`${c}distinct_id`, 'String', false],
  $start_timestamp: (c) => [`${c}start`, 'DateTime', false], $end_timestamp: (c) => [`${c}end`, 'DateTime', false],
  $session_duration: (c) => [`date_diff('second', ${c}start, ${c}end)`, 'Int', false], duration: (c) => [`date_diff('second', ${c}start, ${c}end)`, 'Int', false],
  $entry_current_url: (c) => [`${c}entry_url`, 'String', true], $end_current_url: (c) => [`${c}exit_url`, 'String', true], $exit_current_url: (c) => [`${c}exit_url`, 'String', true],
  $entry_pathname: (c) => [`${c}entry_path`, 'String', true], $end_pathname: (c) => [`${c}exit_path`, 'String', true], $exit_pathname: (c) => [`${c}exit_path`, 'String', true],
  $pageview_count: (c) => [`${c}pageviews`, 'UInt', false], $autocapture_count: (c) => [`${c}autocaptures`, 'UInt', false], $screen_count: (c) => [`${c}screens`, 'UInt', false],
  $num_uniq_urls: (c) => [`${c}uniq_urls`, 'UInt', false], $urls: (c) => [`${c}urls`, 'Array', false],
  $entry_referring_domain: (c) => [`${c}entry_referring_domain`, 'String', true],
  $entry_hostname: (c) => [`${c}entry_host`, 'String', true], $end_hostname: (c) => [`${c}exit_host`, 'String', true],
  ...Object.fromEntries(ENTRY_PROPERTIES.map(([name]) => [`$entry_${name}`, (c: string) => [`${c}entry_${name}`, 'String', true] as [string, Expr['type'], boolean]])),
  $is_bounce: (c) => [`(CASE WHEN ${c}pageviews = 0 THEN NULL ELSE NOT (${c}pageviews > 1 OR ${c}autocaptures > 0 OR date_diff('second', ${c}start, ${c}end) >= 10) END)`, 'Bool', true],
};
const RESERVED = new Set(['true', 'false', 'null', 'team_id']);
// GROUP BY ROLLUP(...), CUBE(...), GROUPING SETS (...): the parser's group_by_mode for each.
const GROUPINGS = new Map([['rollup', 'ROLLUP'], ['cube', 'CUBE'], ['grouping_sets', 'GROUPING SETS']]);

interface SubColumn {
  sqlName: string;
  expr: Expr;
}

interface Source {
  /** Its name in HogQL: the alias, else the table's or CTE's name. */
  name: string | null;
  sqlAlias: string;
  table: TableName | null;
  /** A base table whose person's properties are read (joined in its subquery). */
  persons: boolean;
  /** Events whose session's fields are read (`session.*`, joined in its subquery). */
  sessions: boolean;
  /** Events whose group of these type indexes is read (`group_N.*`, joined in its subquery). */
  groups?: Set<number>;
  columns: Map<string, SubColumn> | null;
  subquery: Sql | null;
  /** An insight's events row (compileRowExpression): its person is the planner's joined `p`, not a column of its subquery. */
  personAlias?: string;
  /** An insight's events row: its fields are the planner's columns, nothing joins into it. */
  row?: boolean;
  /** Events whose match of these actions is read (matchesAction: a column of its subquery). */
  actions?: Map<number, ResolvedAction>;
  /** Events whose match of the query's filters' properties is read ({filters}: a column of its subquery). */
  filters?: boolean;
}

interface Scope {
  sources: Source[];
  aliases: Map<string, HogNode>;
  resolving: Set<string>;
  lambdas: Map<string, string>;
  ctes: Map<string, Cte>;
  /** Table CTEs of this SELECT compiled so far, in the order a DuckDB WITH can define them. */
  withs: Cte[];
  windows: Record<string, HogNode>;
  /**
   * arrayJoin calls of this SELECT by their array (rendered): each a lateral unnest joined to
   * its FROM, one per array however often it is written or its alias used (ClickHouse's, whose
   * identical arrayJoin expressions are one column); over an insight's row, no lateral.
   */
  arrayJoins: Map<string, { lateral: Sql | null; expr: Expr }>;
  parent: Scope | null;
}

// A table CTE: compiled once, at its first read, in the scope that defines it, and emitted
// as a DuckDB WITH of that SELECT under a generated name; every read names it.
interface Cte {
  node: HogNode;
  scope: Scope;
  compiled: { name: string; part: Part } | null;
}

interface Part {
  sql: Sql;
  columns: { name: string; sqlName: string; expr: Expr }[];
}

const POINTER_KEY = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
const JOINS = new Map([
  ['JOIN', 'JOIN'], ['INNER JOIN', 'JOIN'], ['LEFT JOIN', 'LEFT JOIN'], ['LEFT OUTER JOIN', 'LEFT JOIN'], ['RIGHT JOIN', 'RIGHT JOIN'],
  ['RIGHT OUTER JOIN', 'RIGHT JOIN'], ['FULL OUTER JOIN', 'FULL JOIN'], ['FULL JOIN', 'FULL JOIN'], ['CROSS JOIN', 'CROSS JOIN'],
]);
const SET_OPERATORS = new Map([['UNION ALL', 'UNION ALL'], ['UNION DISTINCT', 'UNION'], ['INTERSECT', 'INTERSECT'], ['INTERSECT DISTINCT', 'INTERSECT'], ['EXCEPT', 'EXCEPT'], ['EXCEPT DISTINCT', 'EXCEPT']]);
const COMPARE = new Map([['==', '='], ['!=', '<>'], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>=']]);
const LIKE = new Map([['like', 'LIKE'], ['ilike', 'ILIKE'], ['not like', 'NOT LIKE'], ['not ilike', 'NOT ILIKE']]);
const COMPARE_FUNCTIONS = new Map([
  ['equals', '=='], ['notEquals', '!='], ['less', '<'], ['greater', '>'], ['lessOrEquals', '<='], ['greaterOrEquals', '>='], ['in', 'in'], ['notIn', 'not in'],
]);
const CASTS = new Map([
  ['int', 'BIGINT'], ['integer', 'BIGINT'], ['float', 'DOUBLE'], ['double', 'DOUBLE'], ['real', 'DOUBLE'], ['text', 'VARCHAR'], ['varchar', 'VARCHAR'],
  ['char', 'VARCHAR'], ['string', 'VARCHAR'], ['bool', 'BOOLEAN'], ['boolean', 'BOOLEAN'], ['date', 'DATE'], ['datetime', 'TIMESTAMPTZ'],
  ['timestamp', 'TIMESTAMPTZ'], ['timestamptz', 'TIMESTAMPTZ'], ['uuid', 'UUID'],
]);
const CAST_TYPES: Record<string, Expr['type']> = { BIGINT: 'Int', DOUBLE: 'Float', VARCHAR: 'String', BOOLEAN: 'Bool', DATE: 'Date', TIMESTAMPTZ: 'DateTime', UUID: 'UUID' };

/** The query's text between two offsets of its nodes (offsets count code points). */
function slice(source: readonly string[], node: HogNode): string | null {
  const start = node.start?.offset;
  const end = node.end?.offset;
  return start !== undefined && end !== undefined ? source.slice(start, end).join('') : null;
}

export function compileHogQL(root: HogNode, source: string, ctx: CompileContext): CompiledQuery {
  return withinStack(() => compiler(source, ctx).top(root));
}

// The compiler recurses over the tree: a tree deeper than its stack (a chain of thousands of
// `+`, which no nesting bound sees) is the query's fault, answered as PostHog answers a query
// past its depth limit, not a server error.
function withinStack<T>(compile: () => T): T {
  try {
    return compile();
  } catch (err) {
    if (err instanceof RangeError && /call stack/i.test(err.message)) fail('The query is too deeply nested to compile: split long chains of operators or nested calls');
    throw err;
  }
}

/** A HogQL expression over an insight's events row, as the planners read it (planner/hogql-row.ts). */
export interface RowExpression {
  expr: Expr;
  /** Whether it reads the event's person (the planner joins persons). */
  persons: boolean;
  /** The arrays it arrayJoins (unnests in its SQL: the planner's row repeated per element). */
  arrayJoins: number;
}

/**
 * One HogQL expression (a trends math, a breakdown, a property filter) over the planners'
 * events row: the events table as `e` (its columns by their own names), its person as the
 * planners' `LEFT JOIN persons p` (the aliases an action's steps and cohorts are written
 * over). Subqueries in it are scoped as any.
 */
export function compileRowExpression(node: HogNode, source: string, ctx: CompileContext, allowArrayJoin = false): RowExpression {
  return withinStack(() => compiler(source, ctx).row(node, allowArrayJoin));
}

function compiler(source: string, ctx: CompileContext) {
  const codePoints = Array.from(source);
  const tz = zoneSql(ctx.timezone);
  const project = int(ctx.projectId);
  let counter = 0;
  const id = (prefix: string) => `${prefix}${++counter}`;

  // The table CTEs being compiled: one read again before its body is done refers to itself.
  const compilingCtes = new Set<Cte>();
  const scopeOf = (parent: Scope | null): Scope => ({ sources: [], aliases: new Map(), resolving: new Set(), lambdas: new Map(), ctes: new Map(), withs: [], windows: {}, arrayJoins: new Map(), parent });
  const lookup = <T>(scope: Scope | null, pick: (s: Scope) => T | undefined): T | undefined => {
    for (let s = scope; s; s = s.parent) {
      const found = pick(s);
      if (found !== undefined) return found;
    }
    return undefined;
  };

  // ---- tables and fields

  // A property of `owner`'s (an event's, a person's, a group's; null: of a subquery's column)
  // read as text, then as its definition's type says (./property-types.ts).
  function property(from: Sql, keys: readonly unknown[], hot: boolean, alias: string, owner: PropertyOwner | null = null): Expr {
    return typedProperty(propertyText(from, keys, hot, alias), propertyTypeOf(ctx.propertyTypes, owner, keys), tz);
  }

  function propertyText(from: Sql, keys: readonly unknown[], hot: boolean, alias: string): Expr {
    if (hot && keys.length === 1 && typeof keys[0] === 'string' && HOT_COLUMNS.has(keys[0])) {
      const column = raw(`${alias}.${HOT_COLUMNS.get(keys[0])!}`);
      return expr(column, 'String', [], { nullable: true, json: sql`CAST(to_json(${column}) AS VARCHAR)` });
    }
    const path = text(`/${keys.map((k) => (typeof k === 'number' ? String(k > 0 ? k - 1 : k) : POINTER_KEY(String(k)))).join('/')}`);
    return expr(sql`json_extract_string(${from}, ${path})`, 'String', [], { nullable: true, json: sql`CAST(json_extract(${from}, ${path}) AS VARCHAR)` });
  }

  function personField(src: Source, rest: readonly unknown[]): Expr | null {
    const a = src.sqlAlias;
    const [head, ...more] = rest;
    if (head === 'id' && more.length === 0) return expr(raw(`${a}.person_id`), 'UUID', [], { nullable: false });
    src.persons = true;
    const [createdAt, properties, identified] = src.personAlias !== undefined
      ? [`${src.personAlias}.created_at`, `${src.personAlias}.properties`, `${src.personAlias}.is_identified`]
      : [`${a}.person_created_at`, `${a}.person_properties`, `${a}.person_is_identified`];
    if (head === 'created_at' && more.length === 0) return expr(raw(createdAt), 'DateTime', [], { nullable: true });
    // A personless event's person is no row: not identified.
    if (head === 'is_identified' && more.length === 0) return expr(raw(`coalesce(${identified}, FALSE)`), 'Bool', [], { nullable: false });
    if (head === 'properties') {
      const bag = raw(`CAST(${properties} AS VARCHAR)`);
      return more.length === 0 ? expr(bag, 'String', [], { nullable: true, json: bag }) : property(raw(properties), more, false, a, PERSON_OWNER);
    }
    src.persons = false;
    return null;
  }

  function tableField(src: Source, chain: readonly unknown[]): Expr | null {
    const a = src.sqlAlias;
    const [head, ...rest] = chain;
    const column = (name: string, type: Expr['type'], nullable = false) => (rest.length === 0 ? expr(raw(`${a}.${name}`), type, [], { nullable }) : null);
    if (src.columns !== null) {
      const col = src.columns.get(String(head));
      if (col === undefined) return null;
      const base = expr(raw(`${a}.${col.sqlName}`), col.expr.type, [], { nullable: col.expr.nullable, zone: col.expr.zone });
      return rest.length === 0 ? base : property(str(base), rest, false, a);
    }
    if (head === 'team_id') return column('project', 'Int');
    if (src.table === 'sessions') {
      const f = rest.length === 0 && Object.hasOwn(SESSION_FIELDS, String(head)) ? SESSION_FIELDS[String(head)] : undefined;
      if (f === undefined) return null;
      const [text, type, nullable] = f(`${a}.`);
      return expr(raw(text), type, [], { nullable });
    }
    if (head === 'properties') {
      // A groups row's properties are of any group type: PostHog types them only through group_N.
      const owner = src.table === 'events' ? EVENT_OWNER : src.table === 'persons' ? PERSON_OWNER : null;
      const bag = raw(`CAST(${a}.properties AS VARCHAR)`);
      return rest.length === 0 ? expr(bag, 'String', [], { nullable: false, json: bag }) : property(raw(`${a}.properties`), rest, src.table === 'events', a, owner);
    }
    switch (src.table) {
      case 'events':
        switch (head) {
          case 'uuid': return column('uuid', 'UUID');
          case 'event': return column('event', 'String');
          case 'distinct_id': return column('distinct_id', 'String');
          case 'person_id': return column('person_id', 'UUID');
          case 'timestamp':
          case 'created_at': return column('timestamp', 'DateTime');
          case '$session_id': return column('session_id', 'String', true);
          case 'elements_chain':
          case 'elements_chain_href': return rest.length === 0 ? expr(raw("''"), 'String', [], { nullable: false }) : null;
          case 'elements_chain_texts':
          case 'elements_chain_ids':
          case 'elements_chain_elements': return rest.length === 0 ? expr(raw('CAST([] AS VARCHAR[])'), 'Array', [], { nullable: false }) : null;
          // PostHog's column of the property; '' without one.
          case '$window_id':
            return rest.length === 0 ? expr(sql`coalesce(json_extract_string(${raw(`${a}.properties`)}, ${text('/$window_id')}), '')`, 'String', [], { nullable: false }) : null;
          // The key of the event's group of type index N (the persons step writes it into
          // the properties from $groups); '' without one, as PostHog's column.
          case '$group_0': case '$group_1': case '$group_2': case '$group_3': case '$group_4':
            return rest.length === 0 ? expr(sql`coalesce(json_extract_string(${raw(`${a}.properties`)}, ${text(`/${String(head)}`)}), '')`, 'String', [], { nullable: false }) : null;
          case 'person':
          case 'poe': return personField(src, rest);
          // The event's distinct id mapping: its person is the event's current one.
          case 'pdi':
            if (rest.length === 1 && rest[0] === 'distinct_id') return expr(raw(`${a}.distinct_id`), 'String', [], { nullable: false });
            if (rest.length === 1 && rest[0] === 'person_id') return expr(raw(`${a}.person_id`), 'UUID', [], { nullable: false });
            return rest[0] === 'person' ? personField(src, rest.slice(1)) : null;
          // The event's group of type index N (PostHog's lazy join on $group_N): a LEFT JOIN,
          // an event without one reads NULLs.
          case 'group_0': case 'group_1': case 'group_2': case 'group_3': case 'group_4': {
            if (rest.length === 0) return null;
            const n = Number(String(head).slice(-1));
            const [field, ...more] = rest;
            // In a query, columns of the events subquery (the group joined there); over an
            // insight's row, read from the group itself (`g` below).
            const col = (name: string) => (src.row ? `g.${name === 'index' ? 'type_index' : name}` : `${a}.group_${n}_${name}`);
            let found: Expr | null = null;
            if (field === 'key' && more.length === 0) found = expr(raw(col('key')), 'String', [], { nullable: true });
            else if (field === 'index' && more.length === 0) found = expr(raw(col('index')), 'Int', [], { nullable: true });
            else if (field === 'created_at' && more.length === 0) found = expr(raw(col('created_at')), 'DateTime', [], { nullable: true });
            else if (field === 'properties') found = more.length === 0 ? expr(raw(`CAST(${col('properties')} AS VARCHAR)`), 'String', [], { nullable: true }) : property(raw(col('properties')), more, false, a, { kind: 'group', index: n });
            if (found === null) return null;
            if (src.row) {
              const key = sql`json_extract_string(${raw(`${a}.properties`)}, ${text(`/$group_${n}`)})`;
              return expr(sql`(SELECT ${found.sql} FROM groups g WHERE g.project = ${project} AND g.type_index = ${int(n)} AND g.key = ${key})`, found.type, [], { nullable: true });
            }
            (src.groups ??= new Set()).add(n);
            return found;
          }
          case 'session': {
            const f = rest.length === 1 && Object.hasOwn(SESSION_FIELDS, String(rest[0])) ? SESSION_FIELDS[String(rest[0])] : undefined;
            if (f === undefined) return null;
            // Over an insight's row, the event's session looked up (`s`); in a query, a LEFT
            // JOIN in the events subquery. An event without a session reads NULLs.
            if (src.row) {
              const [field, type] = f('s.');
              return expr(sql`(SELECT ${raw(field)} FROM (${sessionsSql('')}) s WHERE s.session_id = ${raw(`${a}.session_id`)})`, type, [], { nullable: true });
            }
            src.sessions = true;
            const [field, type] = f(`${a}.session_`);
            return expr(raw(field), type, [], { nullable: true });
          }
        }
        return null;
      case 'persons':
        switch (head) {
          case 'id': return column('id', 'UUID');
          case 'created_at': return column('created_at', 'DateTime');
          case 'is_identified': return column('is_identified', 'Bool');
        }
        return null;
      case 'groups':
        switch (head) {
          case 'index': return column('type_index', 'Int');
          case 'key': return column('key', 'String');
          case 'created_at': return column('created_at', 'DateTime');
          // Groups keep their current state only: when it last changed is not stored.
        }
        return null;
      case 'person_distinct_ids':
        switch (head) {
          case 'distinct_id': return column('distinct_id', 'String');
          case 'person_id': return column('person_id', 'UUID');
          case 'person': return personField(src, rest);
        }
        return null;
      case 'cohort_people':
        switch (head) {
          case 'cohort_id': return column('cohort_id', 'Int');
          case 'person_id': return column('person_id', 'UUID');
          case 'person': return personField(src, rest);
        }
        return null;
    }
    return null;
  }

  const sessionsSql = (prefix: string) =>
    sql`SELECT project, session_id AS ${raw(`${prefix}session_id`)}, ${raw(SESSION_COLUMNS.map(([name, agg]) => `${agg} AS ${prefix}${name}`).join(', '))} FROM events WHERE project = ${project} AND session_id IS NOT NULL AND session_id <> '' GROUP BY project, session_id`;

  function tableSql(src: Source): Sql {
    if (src.subquery !== null) return src.subquery;
    switch (src.table!) {
      case 'events': {
        if (!src.persons && !src.sessions && !src.groups?.size && !src.actions?.size && !src.filters) return sql`(SELECT * FROM events WHERE project = ${project})`;
        // `e` and `p`: the aliases the planners' conditions (an action's steps) are written over.
        const extra: Sql[] = [raw('e.*')];
        const joins: Sql[] = [];
        if (src.persons) {
          extra.push(raw('p.properties AS person_properties, p.created_at AS person_created_at, p.is_identified AS person_is_identified'));
          joins.push(raw(' LEFT JOIN persons p ON p.project = e.project AND p.id = e.person_id'));
        }
        if (src.sessions) {
          extra.push(raw('se.* EXCLUDE (project)'));
          joins.push(sql` LEFT JOIN (${sessionsSql('session_')}) se ON se.session_session_id = e.session_id`);
        }
        for (const n of src.groups ?? []) {
          const g = `g${n}`;
          extra.push(raw(`${g}.key AS group_${n}_key, ${g}.type_index AS group_${n}_index, ${g}.created_at AS group_${n}_created_at, ${g}.properties AS group_${n}_properties`));
          joins.push(sql` LEFT JOIN groups ${raw(g)} ON ${raw(g)}.project = e.project AND ${raw(g)}.type_index = ${int(n)} AND ${raw(g)}.key = json_extract_string(e.properties, ${text(`/$group_${n}`)})`);
        }
        for (const action of src.actions?.values() ?? []) extra.push(sql`${actionCondition(action)} AS ${raw(`matches_action_${action.id}`)}`);
        if (src.filters && ctx.filters?.properties) extra.push(sql`coalesce(${ctx.filters.properties.condition}, FALSE) AS filters_match`);
        return sql`(SELECT ${join(extra, ', ')} FROM events e${{ parts: joins }} WHERE e.project = ${project})`;
      }
      case 'sessions':
        return sql`(${sessionsSql('')})`;
      case 'persons':
        return sql`(SELECT * FROM persons WHERE project = ${project})`;
      case 'groups':
        return sql`(SELECT * FROM groups WHERE project = ${project})`;
      case 'person_distinct_ids':
        return src.persons
          ? sql`(SELECT d.*, pe.properties AS person_properties, pe.created_at AS person_created_at, pe.is_identified AS person_is_identified FROM person_distinct_ids d LEFT JOIN persons pe ON pe.project = d.project AND pe.id = d.person_id WHERE d.project = ${project})`
          : sql`(SELECT * FROM person_distinct_ids WHERE project = ${project})`;
      case 'cohort_people': {
        // The cohorts' members worked out now, from the project's persons and events only.
        const people = sql`SELECT ${project} AS project, c.cohort_id, c.person_id FROM (${cohorts(null).people()}) c`;
        return src.persons
          ? sql`(SELECT cp.*, pe.properties AS person_properties, pe.created_at AS person_created_at, pe.is_identified AS person_is_identified FROM (${people}) cp LEFT JOIN persons pe ON pe.project = ${project} AND pe.id = cp.person_id)`
          : sql`(${people})`;
      }
    }
  }

  function field(node: HogNode, chain: readonly unknown[], scope: Scope): Expr {
    const [head, ...rest] = chain;
    const name = String(head);
    const lambda = lookup(scope, (s) => s.lambdas.get(name));
    if (lambda !== undefined && rest.length === 0) return expr(raw(lambda), 'Unknown', [], { nullable: true });
    if (rest.length === 0 && scope.aliases.has(name) && !scope.resolving.has(name)) {
      scope.resolving.add(name);
      try {
        return compile(scope.aliases.get(name)!, scope);
      } finally {
        scope.resolving.delete(name);
      }
    }
    if (rest.length > 0) {
      const named = scope.sources.find((s) => s.name === name);
      if (named !== undefined) {
        const found = tableField(named, rest);
        if (found !== null) return found;
        fail(missingField(named.table, rest) ?? `Unable to resolve field: ${chain.join('.')}`, node);
      }
    }
    for (const src of scope.sources) {
      const found = tableField(src, chain);
      if (found !== null) return found;
    }
    for (const src of scope.sources) {
      const missing = missingField(src.table, chain);
      if (missing !== null) fail(missing, node);
    }
    return fail(`Unable to resolve field: ${chain.join('.')}`, node);
  }

  // ---- expressions

  function constant(value: unknown, node?: HogNode): Expr {
    if (value === null || value === undefined) return NULL_EXPR;
    if (typeof value === 'string') return expr(sql`${text(value)}`, 'String', [], { nullable: false, constant: { value } });
    if (typeof value === 'boolean') return expr(sql`${bool(value)}`, 'Bool', [], { nullable: false, constant: { value } });
    if (typeof value === 'number') {
      return Number.isSafeInteger(value)
        ? expr(sql`${int(value)}`, 'Int', [], { nullable: false, constant: { value } })
        : expr(sql`${float(value)}`, 'Float', [], { nullable: false, constant: { value } });
    }
    if (Array.isArray(value)) {
      const items = value.map((v) => constant(v, node));
      return expr(sql`[${join(items.map((i) => i.sql), ', ')}]`, 'Array', items, { nullable: false });
    }
    return fail('Unsupported constant', node);
  }

  // {filters} (PostHog's HogQLFilters): in a SELECT reading the events, sessions or groups
  // table, the date range on that table's time (events: timestamp, sessions:
  // $start_timestamp, groups: created_at; from inclusive, to exclusive), the property
  // filters (test accounts' too) on its events and session filters on its sessions (or its
  // events' sessions); no filters given is true.
  function filtersCondition(node: HogNode, scope: Scope): Expr {
    const has = (table: TableName) => scope.sources.some((s) => s.table === table);
    const events = scope.sources.find((s) => s.table === 'events');
    if (!events && !has('sessions') && !has('groups')) {
      fail("Cannot use 'filters' placeholder in a SELECT clause that does not select from the events, sessions or groups table.", node);
    }
    const f = ctx.filters;
    if (f === null) return expr(raw('TRUE'), 'Bool', [], { nullable: false });
    const parts: Sql[] = [];
    if (f.properties !== null) {
      if (has('groups')) fail('Property filters in {filters} are not supported over the groups table', node);
      if (!events) fail('Can only use session properties in a filter when selecting from only the sessions table.', node);
      // Over an insight's row, the condition itself; in a query, a column of the events subquery.
      if (f.properties.persons) events!.persons = true;
      if (events!.row) {
        parts.push(sql`coalesce(${f.properties.condition}, FALSE)`);
      } else {
        events!.filters = true;
        parts.push(raw(`${events!.sqlAlias}.filters_match`));
      }
    }
    if (f.sessions !== null) {
      // On the sessions table in the FROM, else on the events' session (PostHog's lazy join).
      const sessions = scope.sources.find((s) => s.table === 'sessions');
      if (sessions === undefined && (!events || has('groups'))) fail('Session property filters in {filters} need the events or sessions table', node);
      parts.push(f.sessions((key) => {
        const value = sessions !== undefined ? tableField(sessions, [key]) : tableField(events!, ['session', key]);
        return value === null ? fail(`Unknown session property "${key}" in {filters}`, node) : str(value);
      }));
    }
    const time = field(node, [has('groups') ? 'created_at' : events ? 'timestamp' : '$start_timestamp'], scope);
    if (f.toUs !== null) parts.push(sql`${instant(time, tz)} < ${timestamp(f.toUs)}`);
    if (f.fromUs !== null) parts.push(sql`${instant(time, tz)} >= ${timestamp(f.fromUs)}`);
    if (parts.length === 0) return expr(raw('TRUE'), 'Bool', [], { nullable: false });
    return expr(sql`(${join(parts, ' AND ')})`, 'Bool', [time], { nullable: false });
  }

  // {filters.dateRange.from} / {filters.dateRange.to}: the bound as a DateTime; without it the
  // comparison holding the placeholder is true (PostHog's), and elsewhere it is refused.
  const comparisons: { skip: boolean }[] = [];
  function dateRangeBound(node: HogNode, which: 'from' | 'to'): Expr {
    const us = which === 'from' ? ctx.filters?.fromUs : ctx.filters?.toUs;
    if (us !== null && us !== undefined) return expr(sql`${timestamp(us)}`, 'DateTime', [], { nullable: false });
    const innermost = comparisons[comparisons.length - 1];
    if (innermost === undefined) {
      fail(`The \`{filters.dateRange.${which}}\` placeholder must be used directly in a comparison (e.g. \`timestamp > {filters.dateRange.${which}}\`), not nested inside a function call, when the date range is not set.`, node);
    }
    innermost.skip = true;
    return expr(raw('TRUE'), 'Bool', [], { nullable: false });
  }

  function placeholder(node: HogNode, scope: Scope): Expr {
    const chain = ((node.expr as HogNode | undefined)?.chain ?? []) as unknown[];
    const name = chain.map(String).join('.');
    if (chain.length === 2 && chain[0] === 'variables') {
      const code = String(chain[1]);
      if (!Object.hasOwn(ctx.variables, code)) fail(`Variable ${code} is missing from query`, node);
      return constant(ctx.variables[code], node);
    }
    if (chain.length === 1 && Object.hasOwn(ctx.values, name)) return constant(ctx.values[name], node);
    if (name === 'filters') return filtersCondition(node, scope);
    if (name === 'filters.dateRange.from' || name === 'filters.dateRange.to') return dateRangeBound(node, name === 'filters.dateRange.from' ? 'from' : 'to');
    if (chain[0] === 'filters') {
      fail(`Unsupported filters placeholder \`{${name}}\`. Supported filters placeholders are: \`{filters}\`, \`{filters.dateRange.from}\`, \`{filters.dateRange.to}\`.`, node);
    }
    const known = Object.keys(ctx.values);
    return fail(`Placeholder {${name}} is not available in this context.${known.length ? ` You can use the following: ${known.join(', ')}` : ''}`, node);
  }

  /** Two sides compared as PostHog compares them: instants with instants, text read as a number against a number. */
  function coerced(l: Expr, r: Expr): [Sql, Sql] {
    if (l.type === 'DateTime' || r.type === 'DateTime') return [instant(l, tz, true), instant(r, tz, true)];
    if (l.type === 'Date' || r.type === 'Date') return [date(l, tz), date(r, tz)];
    if ((isNumeric(l) && r.type === 'String') || (isNumeric(r) && l.type === 'String')) return [num(l), num(r)];
    // A UUID against text compares as text; two UUIDs as UUIDs (a join on ids stays a UUID join).
    if ((l.type === 'UUID') !== (r.type === 'UUID') && l.type !== 'Null' && r.type !== 'Null') return [str(l), str(r)];
    return [l.sql, r.sql];
  }

  function compare(op: string, leftNode: HogNode, rightNode: HogNode, scope: Scope, node: HogNode): Expr {
    const word = raw(op === 'in' ? 'IN' : 'NOT IN');
    if ((op === 'in' || op === 'not in') && (rightNode.node === 'SelectQuery' || rightNode.node === 'SelectSetQuery')) {
      // A tuple against a subquery's columns is DuckDB's row constructor, compared column by column.
      const items = leftNode.node === 'Tuple' ? (leftNode.exprs as HogNode[]).map((e) => compile(e, scope)) : null;
      const l = items ? expr(sql`row(${join(items.map((i) => i.sql), ', ')})`, 'Tuple', items) : compile(leftNode, scope);
      return expr(sql`(${l.sql} ${word} (${query(rightNode, scope).sql}))`, 'Bool', [l]);
    }
    const l = compile(leftNode, scope);
    if (op === 'in' || op === 'not in') {
      const items = rightNode.node === 'Tuple' || rightNode.node === 'Array' ? (rightNode.exprs as HogNode[]).map((e) => compile(e, scope)) : [compile(rightNode, scope)];
      if (items.length === 1 && items[0].type === 'Array') {
        const has = sql`list_contains(${items[0].sql}, ${l.sql})`;
        return expr(op === 'in' ? has : sql`(NOT ${has})`, 'Bool', [l, items[0]]);
      }
      if (items.length === 0) return expr(raw(op === 'in' ? 'FALSE' : 'TRUE'), 'Bool');
      const pairs = items.map((i) => coerced(l, i));
      return expr(sql`(${pairs[0][0]} ${word} (${join(pairs.map((p) => p[1]), ', ')}))`, 'Bool', [l, ...items]);
    }
    if (op === 'in cohort' || op === 'not in cohort') return inCohort(l, rightNode, op === 'not in cohort', node);
    const r = compile(rightNode, scope);
    if (op === '==' || op === '!=') {
      if (r.type === 'Null' || l.type === 'Null') {
        const other = r.type === 'Null' ? l : r;
        return expr(sql`(${other.sql} ${raw(op === '==' ? 'IS NULL' : 'IS NOT NULL')})`, 'Bool', [other], { nullable: false });
      }
      const [a, b] = coerced(l, r);
      // ClickHouse's NULL rules as PostHog prints them: NULL = NULL, and NULL != 'x'.
      if (l.nullable || r.nullable) return expr(sql`(${a} ${raw(op === '==' ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM')} ${b})`, 'Bool', [l, r], { nullable: false });
      return expr(sql`(${a} ${raw(COMPARE.get(op)!)} ${b})`, 'Bool', [l, r]);
    }
    const like = LIKE.get(op);
    if (like !== undefined) return expr(sql`(${str(l)} ${raw(like)} ${str(r)})`, 'Bool', [l, r]);
    if (op === '=~' || op === '!~' || op === '=~*' || op === '!~*') {
      const m = op.endsWith('*') ? sql`regexp_matches(${str(l)}, ${str(r)}, 'i')` : sql`regexp_matches(${str(l)}, ${str(r)})`;
      return expr(op.startsWith('!') ? sql`(NOT ${m})` : m, 'Bool', [l, r]);
    }
    const cmp = COMPARE.get(op);
    if (cmp === undefined) return fail(`Unsupported comparison operator: ${op}`, node);
    const [a, b] = coerced(l, r);
    return expr(sql`(${a} ${raw(cmp)} ${b})`, 'Bool', [l, r]);
  }

  function cohorts(node: HogNode | null): NonNullable<CompileContext['cohorts']> {
    return ctx.cohorts ?? fail('Cohorts are not available in HogQL here', node ?? undefined);
  }

  // `x IN COHORT c`: c a cohort's id or name (a constant), as PostHog resolves it.
  function inCohort(l: Expr, ref: HogNode, negated: boolean, node: HogNode): Expr {
    return expr(cohortMembership(ctx.cohorts, l.sql, ref, negated, node), 'Bool', [l]);
  }

  function arithmetic(node: HogNode, scope: Scope): Expr {
    const op = String(node.op);
    if (!['+', '-', '*', '/', '%'].includes(op)) fail(`Unsupported arithmetic operator: ${op}`, node);
    const l = compile(node.left as HogNode, scope);
    const r = compile(node.right as HogNode, scope);
    if ((op === '+' || op === '-') && (l.type === 'Interval' || r.type === 'Interval')) {
      const [time, span] = r.type === 'Interval' ? [l, r] : [r, l];
      if (time.type === 'Date') return expr(sql`CAST(${time.sql} ${raw(op)} ${span.sql} AS DATE)`, 'Date', [l, r]);
      return expr(sql`(${instant(time, tz)} ${raw(op)} ${span.sql})`, 'DateTime', [l, r]);
    }
    if ((op === '+' || op === '-') && l.type === 'Date' && isNumeric(r)) return expr(sql`(${l.sql} ${raw(op)} CAST(${r.sql} AS INTEGER))`, 'Date', [l, r]);
    const ints = (l.type === 'Int' || l.type === 'UInt') && (r.type === 'Int' || r.type === 'UInt');
    const type = op === '/' ? 'Float' : ints ? 'Int' : l.type === 'Unknown' || r.type === 'Unknown' ? 'Unknown' : 'Float';
    return expr(sql`(${num(l)} ${raw(op)} ${num(r)})`, type, [l, r]);
  }

  function frameBound(b: HogNode | null | undefined): Sql {
    if (!b) return raw('UNBOUNDED PRECEDING');
    const kind = String(b.frame_type);
    if (kind === 'CURRENT ROW') return raw('CURRENT ROW');
    const value = b.frame_value as unknown;
    const n = typeof value === 'object' && value !== null ? (value as HogNode).value : value;
    const dir = kind === 'FOLLOWING' ? 'FOLLOWING' : 'PRECEDING';
    if (n === null || n === undefined) return raw(`UNBOUNDED ${dir}`);
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) return fail('A window frame bound must be a whole number', b);
    return raw(`${n} ${dir}`);
  }

  function windowSpec(node: HogNode, scope: Scope): Sql {
    let spec = node.over_expr as HogNode | null | undefined;
    if (!spec && node.over_identifier) {
      spec = lookup(scope, (s) => (Object.hasOwn(s.windows, String(node.over_identifier)) ? s.windows[String(node.over_identifier)] : undefined));
      if (!spec) fail(`Unknown window: ${String(node.over_identifier)}`, node);
    }
    const parts: Sql[] = [];
    const partition = (spec?.partition_by ?? []) as HogNode[];
    if (partition.length) parts.push(sql`PARTITION BY ${join(partition.map((p) => compile(p, scope).sql), ', ')}`);
    const order = (spec?.order_by ?? []) as HogNode[];
    if (order.length) parts.push(sql`ORDER BY ${join(order.map((o) => orderItem(o, scope, null)), ', ')}`);
    if (spec?.frame_method) {
      const method = raw(spec.frame_method === 'RANGE' ? 'RANGE' : 'ROWS');
      parts.push(spec.frame_end
        ? sql`${method} BETWEEN ${frameBound(spec.frame_start as HogNode)} AND ${frameBound(spec.frame_end as HogNode)}`
        : sql`${method} ${frameBound(spec.frame_start as HogNode)}`);
    }
    return join(parts, ' ');
  }

  function callArgs(nodes: HogNode[], scope: Scope): Expr[] {
    return nodes.map((a) => (a.node === 'Lambda' ? lambda(a, scope) : compile(a, scope)));
  }

  function lambda(node: HogNode, scope: Scope): Expr {
    const inner = scopeOf(scope);
    inner.sources = scope.sources;
    inner.aliases = scope.aliases;
    const names = (node.args as string[]).map((name) => {
      const generated = id('l');
      inner.lambdas.set(name, generated);
      return generated;
    });
    const body = compile(node.expr as HogNode, inner);
    return expr(sql`lambda ${raw(names.join(', '))}: ${body.sql}`, 'Lambda', [body]);
  }

  function functionCall(node: HogNode, scope: Scope, window: boolean): Expr {
    const name = String(node.name);
    let argNodes = (window ? ((node.args as HogNode[] | null)?.length ? node.args : node.exprs) : node.args) as HogNode[] | null ?? [];
    const paramNodes = (window ? ((node.args as HogNode[] | null)?.length ? node.exprs : null) : node.params) as HogNode[] | null ?? [];
    if (!window) {
      const cmp = COMPARE_FUNCTIONS.get(name);
      if (cmp !== undefined && argNodes.length === 2) return compare(cmp, argNodes[0], argNodes[1], scope, node);
      if (name.toLowerCase() === 'exists' && argNodes.length === 1 && (argNodes[0].node === 'SelectQuery' || argNodes[0].node === 'SelectSetQuery')) {
        return expr(sql`EXISTS (${query(argNodes[0], scope).sql})`, 'Bool');
      }
    }
    if (!window && name === 'arrayJoin') return arrayJoin(node, argNodes, scope);
    if (!window && name === 'matchesAction') return matchesAction(node, argNodes, scope);
    if (!window && name === 'recording_button' && argNodes.length === 1) argNodes = [argNodes[0], { node: 'Field', chain: ['properties', '$recording_status'] }];
    // inCohort(c) / notInCohort(c): the row's person_id IN COHORT c.
    if (!window && (name === 'inCohort' || name === 'notInCohort')) {
      if (argNodes.length !== 1) fail(`Function '${name}' expects 1 argument, found ${argNodes.length}`, node);
      return inCohort(field(node, ['person_id'], scope), argNodes[0], name === 'notInCohort', node);
    }
    const spec = lookupFunction(name);
    if (spec === undefined || (spec.group === 'window' && !window)) {
      const why = missingFunction(name);
      if (why !== null) return fail(`Unsupported function call '${name}(...)': ${why}.`, node);
      const hint = closestFunction(name);
      return fail(`Unsupported function call '${name}(...)'.${hint ? ` Perhaps you meant '${hint}(...)'?` : ''}`, node);
    }
    if (name.toLowerCase() === 'count' && argNodes.length === 1 && argNodes[0].node === 'Field' && (argNodes[0].chain as unknown[]).length === 1 && (argNodes[0].chain as unknown[])[0] === '*') argNodes = [];
    if (argNodes.length < spec.min || argNodes.length > spec.max) {
      const expects = spec.min === spec.max ? `${spec.min}` : argNodes.length < spec.min ? `at least ${spec.min}` : `at most ${spec.max}`;
      fail(`Function '${name}' expects ${expects} argument${spec.max === 1 && spec.min === 1 ? '' : 's'}, found ${argNodes.length}`, node);
    }
    if (spec.params === undefined && paramNodes.length > 0) fail(`Function '${name}' does not accept parameters`, node);
    if (spec.params !== undefined && (paramNodes.length < spec.params[0] || paramNodes.length > spec.params[1])) {
      fail(`Aggregation '${name}' requires ${spec.params[0]} parameter${spec.params[0] === 1 ? '' : 's'}, e.g. ${name}(0.5)(x)`, node);
    }
    const args = callArgs(argNodes, scope);
    const params = paramNodes.map((p) => compile(p, scope));
    if (spec.aggregate) {
      const nested = args.find((a) => a.aggregate !== null);
      if (nested) fail(`Aggregation '${nested.aggregate}' cannot be nested inside another aggregation '${name}'.`, node);
    }
    const fx = { tz, weekStart: ctx.weekStart, distinct: node.distinct === true, params, node, name };
    let built = spec.build(args, fx);
    if (node.filter_expr && spec.aggregate) {
      const cond = compile(node.filter_expr as HogNode, scope);
      built = { ...built, sql: sql`${built.sql} FILTER (WHERE ${cond.sql})` };
    }
    if (window) {
      return { ...built, sql: sql`${built.sql} OVER (${windowSpec(node, scope)})`, aggregate: args.find((a) => a.aggregate !== null)?.aggregate ?? null, nullable: true };
    }
    return built;
  }

  // An event's match of an action's steps (planner/actions.ts, as ActionsNode series read
  // them), NULL read as no match.
  function actionCondition(action: ResolvedAction): Sql {
    const properties = ctx.properties ?? { projectId: ctx.projectId, valueSets: new Map(), cohorts: new Map() };
    try {
      return sql`coalesce(${actionSql(action, properties, `matchesAction(${action.id})`)}, FALSE)`;
    } catch (err) {
      if (err instanceof QueryError && !(err instanceof HogQLError)) throw new HogQLError(`matchesAction(${action.id}): ${err.message}`);
      throw err;
    }
  }

  // matchesAction(id or name): whether the event in scope matches one of the project's
  // actions. In a query, a column of the events subquery (its person joined there when the
  // steps read it); over an insight's row, the condition itself.
  function matchesAction(node: HogNode, argNodes: HogNode[], scope: Scope): Expr {
    const arg = argNodes.length === 1 ? argNodes[0] : null;
    const ref = arg?.node === 'Constant' && (typeof arg.value === 'string' || (typeof arg.value === 'number' && Number.isSafeInteger(arg.value))) ? (arg.value as string | number) : null;
    if (ref === null) return fail('matchesAction takes one constant argument, the action\'s id or name: matchesAction(7) or matchesAction(\'Signed up\')', node);
    const action = ctx.actions === undefined ? undefined : actionByReference(ctx.actions, ref);
    if (action === undefined) return fail(typeof ref === 'number' ? `Action ${ref} does not exist in this project` : `No action named '${ref}' exists in this project`, arg!);
    const src = lookup(scope, (s) => s.sources.find((x) => x.table === 'events'));
    if (src === undefined) return fail('matchesAction reads an event: use it in a query over the events table', node);
    const persons = actionUsesPersons(action);
    if (src.row) {
      if (persons) src.persons = true;
      return expr(actionCondition(action), 'Bool', [], { nullable: false });
    }
    if (persons) src.persons = true;
    (src.actions ??= new Map()).set(action.id, action);
    return expr(raw(`${src.sqlAlias}.matches_action_${action.id}`), 'Bool', [], { nullable: false });
  }

  // arrayJoin(arr): a row per element, as ClickHouse's; here a lateral unnest joined to the
  // SELECT's FROM, so the element can be grouped, filtered and ordered by like a column.
  // Over an insight's events row (a breakdown) there is no FROM to join to: DuckDB's unnest in
  // the planner's select list is the same, a row per element and none for an empty or NULL array.
  function arrayJoin(node: HogNode, argNodes: HogNode[], scope: Scope): Expr {
    if (argNodes.length !== 1) fail(`Function 'arrayJoin' expects 1 argument, found ${argNodes.length}`, node);
    const array = compile(argNodes[0], scope);
    if (array.aggregate !== null) fail(`Aggregation '${array.aggregate}' cannot be inside arrayJoin`, node);
    const rendered = render(array.sql);
    const key = `${rendered.text}\u0000${JSON.stringify(rendered.params)}`;
    const known = scope.arrayJoins.get(key);
    if (known !== undefined) return known.expr;
    if (scope.sources[0]?.row) {
      const unnested = expr(sql`unnest(${array.sql})`, 'Unknown', [array], { nullable: true });
      scope.arrayJoins.set(key, { lateral: null, expr: unnested });
      return unnested;
    }
    const alias = id('j');
    const joined = expr(raw(`${alias}.v`), 'Unknown', [], { nullable: true });
    scope.arrayJoins.set(key, { lateral: sql`(SELECT unnest(${array.sql}) AS v) AS ${raw(alias)}`, expr: joined });
    return joined;
  }

  function compile(node: HogNode, scope: Scope): Expr {
    switch (node.node) {
      case 'Constant':
        if (node.value_type === 'number' && typeof node.value === 'string') return expr(sql`${float(Number(node.value))}`, 'Float', [], { nullable: false });
        return constant(node.value, node);
      case 'Field': {
        const chain = node.chain as unknown[];
        if (chain[chain.length - 1] === '*') return fail('Cannot use * here: select it at the top of a SELECT, or count(*)', node);
        return field(node, chain, scope);
      }
      case 'Alias': {
        // Inside its own expression a select alias names the column it shadows (PostHog's
        // resolver adds an alias once its expression is resolved): `x + 1 AS x` adds one once.
        const name = String(node.alias);
        if (scope.aliases.get(name) !== node.expr || scope.resolving.has(name)) return compile(node.expr as HogNode, scope);
        scope.resolving.add(name);
        try {
          return compile(node.expr as HogNode, scope);
        } finally {
          scope.resolving.delete(name);
        }
      }
      case 'Placeholder':
        return placeholder(node, scope);
      case 'And':
      case 'Or': {
        const parts = (node.exprs as HogNode[]).map((e) => compile(e, scope));
        return expr(sql`(${join(parts.map((p) => p.sql), node.node === 'And' ? ' AND ' : ' OR ')})`, 'Bool', parts);
      }
      case 'Not': {
        const inner = compile(node.expr as HogNode, scope);
        return expr(sql`(NOT ${inner.sql})`, 'Bool', [inner]);
      }
      case 'CompareOperation': {
        comparisons.push({ skip: false });
        try {
          const compared = compare(String(node.op), node.left as HogNode, node.right as HogNode, scope, node);
          return comparisons[comparisons.length - 1].skip ? expr(raw('TRUE'), 'Bool', [], { nullable: false }) : compared;
        } finally {
          comparisons.pop();
        }
      }
      case 'ArithmeticOperation':
        return arithmetic(node, scope);
      case 'BetweenExpr': {
        const x = compile(node.expr as HogNode, scope);
        const low = compile(node.low as HogNode, scope);
        const high = compile(node.high as HogNode, scope);
        const [a, lo] = coerced(x, low);
        const [, hi] = coerced(x, high);
        return expr(sql`(${a} ${raw(node.negated ? 'NOT BETWEEN' : 'BETWEEN')} ${lo} AND ${hi})`, 'Bool', [x, low, high]);
      }
      case 'IsDistinctFrom': {
        const l = compile(node.left as HogNode, scope);
        const r = compile(node.right as HogNode, scope);
        const [a, b] = coerced(l, r);
        return expr(sql`(${a} ${raw(node.negated ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM')} ${b})`, 'Bool', [l, r], { nullable: false });
      }
      case 'Call':
        return functionCall(node, scope, false);
      case 'WindowFunction':
        return functionCall(node, scope, true);
      case 'Lambda':
        return fail('A lambda can only be an argument of an array function, e.g. arrayMap(x -> x * 2, arr)', node);
      case 'Array': {
        const items = (node.exprs as HogNode[]).map((e) => compile(e, scope));
        return expr(sql`[${join(items.map((i) => i.sql), ', ')}]`, 'Array', items, { nullable: false });
      }
      case 'Tuple': {
        const items = (node.exprs as HogNode[]).map((e) => compile(e, scope));
        return expr(tupleSql(items.map((i) => i.sql)), 'Tuple', items, { nullable: false });
      }
      case 'ArrayAccess': {
        const target = node.array as HogNode;
        const index = node.property as HogNode;
        if (target.node === 'Field' && index.node === 'Constant' && typeof index.value === 'string') {
          return field(node, [...(target.chain as unknown[]), index.value], scope);
        }
        if (index.node === 'Constant' && index.value === 0) fail('SQL indexes start from one, not from zero. E.g: array[1]', node);
        const arr = compile(target, scope);
        const i = compile(index, scope);
        return expr(sql`(${arr.sql})[${num(i)}]`, 'Unknown', [arr, i], { nullable: true });
      }
      case 'TupleAccess': {
        const t = compile(node.tuple as HogNode, scope);
        const index = Number(node.index);
        if (!Number.isInteger(index) || index < 1) fail('SQL indexes start from one, not from zero. E.g: array[1]', node);
        return expr(sql`struct_extract_at(${t.sql}, ${raw(String(index))})`, 'Unknown', [t], { nullable: true });
      }
      case 'TypeCast':
      case 'TryCast': {
        const target = CASTS.get(String(node.type_name).toLowerCase());
        if (target === undefined) return fail(`Unsupported type cast '${String(node.type_name)}'`, node);
        const inner = compile(node.expr as HogNode, scope);
        if (target === 'TIMESTAMPTZ') return expr(instant(inner, tz), 'DateTime', [inner], { nullable: true });
        return expr(sql`TRY_CAST(${inner.sql} AS ${raw(target)})`, CAST_TYPES[target], [inner], { nullable: true });
      }
      case 'SelectQuery':
      case 'SelectSetQuery': {
        const sub = query(node, scope);
        const first = sub.columns[0]?.expr;
        return expr(sql`(${sub.sql})`, first?.type ?? 'Unknown', [], { nullable: true });
      }
      default:
        return fail(`Unsupported HogQL syntax: ${node.node}`, node);
    }
  }

  // ---- queries

  function columnName(item: HogNode): string {
    if (item.node === 'Alias') return String(item.alias);
    if (item.node === 'Field') {
      const chain = (item.chain as unknown[]).map(String);
      const at = chain.indexOf('properties');
      if (at !== -1 && at < chain.length - 1) return chain.slice(at + 1).join('__');
      return chain[chain.length - 1];
    }
    return slice(codePoints, item) ?? item.node;
  }

  function orderItem(o: HogNode, scope: Scope, positions: number | null): Sql {
    const target = (o.node === 'OrderExpr' ? o.expr : o) as HogNode;
    const dir = raw(o.order === 'DESC' ? ' DESC' : ' ASC');
    if (positions !== null && target.node === 'Constant' && typeof target.value === 'number' && Number.isInteger(target.value)) {
      if (target.value < 1 || target.value > positions) fail(`ORDER BY position ${target.value} is not in the select list`, target);
      return sql`${raw(String(target.value))}${dir}`;
    }
    return sql`${compile(target, scope).sql}${dir}`;
  }

  function sourceOf(j: HogNode, scope: Scope): Source {
    if (j.table_final) fail('The FINAL keyword is not supported in HogQL as it causes slow queries', j);
    if (j.sample) fail('SAMPLE is not supported here', j);
    const table = j.table as HogNode;
    const alias = j.alias === null || j.alias === undefined ? null : String(j.alias);
    if (alias !== null && RESERVED.has(alias.toLowerCase())) fail(`"${alias}" cannot be an alias or identifier, as it's a reserved keyword`, j);
    const sqlAlias = id('t');
    if (table.node === 'Field') {
      const chain = (table.chain as unknown[]).map(String);
      const args = (j.table_args ?? []) as HogNode[];
      if (chain.length === 1 && args.length === 0) {
        const cte = lookup(scope, (s) => s.ctes.get(chain[0]));
        if (cte !== undefined) return cteSource(cte, table, alias ?? chain[0], sqlAlias);
        if (TABLES.has(chain[0])) return { name: alias ?? chain[0], sqlAlias, table: chain[0] as TableName, persons: false, sessions: false, columns: null, subquery: null };
      }
      if (chain.length === 1 && chain[0] === 'numbers' && (args.length === 1 || args.length === 2)) return numbersSource(args, alias ?? 'numbers', sqlAlias);
      return fail(`Unknown table "${chain.join('.')}".`, table);
    }
    if (table.node === 'SelectQuery' || table.node === 'SelectSetQuery') return subquerySource(query(table, scope), alias, sqlAlias);
    return fail(`Unsupported table: ${table.node}`, table);
  }

  // numbers(n), numbers(offset, n): ClickHouse's table of the integers offset … offset+n-1 in
  // a column `number` (PostHog's trends count the days of a range with it). Its arguments
  // read no table (compiled in a scope of their own) and its size is bounded as range()'s.
  function numbersSource(args: HogNode[], name: string, sqlAlias: string): Source {
    const own = scopeOf(null);
    const [offset, count] = (args.length === 2 ? args : [null, args[0]]).map((a) => {
      if (a === null) return raw('0');
      const e = compile(a, own);
      if (e.aggregate !== null || !(isNumeric(e) || e.type === 'Unknown' || e.type === 'Null')) fail('numbers() takes integers', a);
      return sql`CAST(${num(e)} AS BIGINT)`;
    });
    const size = sql`(CASE WHEN ${count} > ${raw(String(MAX_BUILT))} THEN error(${text(`numbers() is limited to ${MAX_BUILT} rows`)}) ELSE ${count} END)`;
    const column = { name: 'number', sqlName: 'c0', expr: expr(raw('c0'), 'UInt', [], { nullable: false }) };
    return subquerySource({ sql: sql`SELECT unnest(range(${offset}, ${offset} + ${size})) AS c0`, columns: [column] }, name, sqlAlias);
  }

  function cteSource(cte: Cte, table: HogNode, name: string, sqlAlias: string): Source {
    if (cte.compiled === null) {
      // One it is already inside would recurse without end.
      if (compilingCtes.has(cte)) fail(`The CTE "${name}" refers to itself: HogQL has no recursive CTEs`, table);
      compilingCtes.add(cte);
      try {
        cte.compiled = { part: query(cte.node, cte.scope), name: id('w') };
      } finally {
        compilingCtes.delete(cte);
      }
      cte.scope.withs.push(cte);
    }
    return { ...subquerySource(cte.compiled.part, name, sqlAlias), subquery: raw(cte.compiled.name) };
  }

  function subquerySource(part: Part, name: string | null, sqlAlias: string): Source {
    const columns = new Map<string, SubColumn>();
    for (const c of part.columns) if (!columns.has(c.name)) columns.set(c.name, { sqlName: c.sqlName, expr: c.expr });
    return { name, sqlAlias, table: null, persons: false, sessions: false, columns, subquery: sql`(${part.sql})` };
  }

  function starColumns(src: Source): { name: string; expr: Expr }[] {
    if (src.columns !== null) return [...src.columns.keys()].map((name) => ({ name, expr: tableField(src, [name])! }));
    return STAR[src.table!].map((name) => ({ name, expr: tableField(src, [name])! }));
  }

  function selectQuery(node: HogNode, parent: Scope | null, limit: ((given: Sql | null) => Sql | null) | null): Part {
    const scope = scopeOf(parent);
    for (const cte of (node.ctes ?? []) as (HogNode | null)[]) {
      if (!cte) continue;
      const name = String(cte.name);
      if (cte.cte_type === 'column') scope.aliases.set(name, cte.expr as HogNode);
      else scope.ctes.set(name, { node: cte.expr as HogNode, scope, compiled: null });
    }
    scope.windows = (node.window_exprs ?? {}) as Record<string, HogNode>;

    const joins: { j: HogNode; src: Source }[] = [];
    for (let j = node.select_from as HogNode | null; j; j = j.next_join as HogNode | null) {
      const src = sourceOf(j, scope);
      scope.sources.push(src);
      joins.push({ j, src });
    }

    const items = (node.select ?? []) as HogNode[];
    for (const item of items) {
      if (item.node !== 'Alias') continue;
      const alias = String(item.alias);
      if (RESERVED.has(alias.toLowerCase())) fail(`"${alias}" cannot be an alias or identifier, as it's a reserved keyword`, item);
      if (scope.aliases.has(alias)) fail(`Cannot redefine an alias with the name: ${alias}`, item);
      scope.aliases.set(alias, item.expr as HogNode);
    }
    const arrayJoinClause = node.array_join_op ? arrayJoinFrom(node, scope) : null;
    const columns: Part['columns'] = [];
    for (const item of items) {
      const chain = item.node === 'Field' ? (item.chain as unknown[]) : null;
      if (chain !== null && chain[chain.length - 1] === '*') {
        const from = chain.length === 1 ? scope.sources : scope.sources.filter((s) => s.name === String(chain[0]));
        if (from.length === 0) fail(chain.length === 1 ? 'Cannot select * without a FROM clause' : `Unable to resolve field: ${chain.join('.')}`, item);
        for (const src of from) for (const c of starColumns(src)) columns.push({ name: c.name, sqlName: `c${columns.length}`, expr: c.expr });
        continue;
      }
      columns.push({ name: columnName(item), sqlName: `c${columns.length}`, expr: compile(item, scope) });
    }
    if (columns.length === 0) fail('A SELECT needs at least one column', node);

    // Conditions on aggregates are moved from WHERE to HAVING, as PostHog moves them.
    const where: Sql[] = [];
    const having: Sql[] = [];
    for (const clause of [node.prewhere, node.where] as (HogNode | null | undefined)[]) {
      if (!clause) continue;
      const conjuncts = clause.node === 'And' ? (clause.exprs as HogNode[]) : [clause];
      for (const c of conjuncts) {
        const e = compile(c, scope);
        (e.aggregate !== null ? having : where).push(e.sql);
      }
    }
    // A select alias grouped or ordered by is its column's position: the expression is not
    // repeated, and one that cannot be repeated there (arrayJoin's unnest) still groups.
    const positions = new Map<string, number>();
    items.forEach((item, i) => {
      if (item.node === 'Alias' && columns[i]?.name === String(item.alias) && !positions.has(String(item.alias))) positions.set(String(item.alias), i + 1);
    });
    const aliasPosition = (n: HogNode): number | undefined => {
      const chain = n.node === 'Field' ? (n.chain as unknown[]) : null;
      return chain !== null && chain.length === 1 && items.length === columns.length ? positions.get(String(chain[0])) : undefined;
    };
    const grouping = GROUPINGS.get(String(node.group_by_mode));
    if (grouping !== undefined) fail(`GROUP BY ${grouping} is not supported by hedgerow: it returns the groups only (add totals with a UNION ALL of a SELECT grouped by fewer columns)`, node);
    const groupBy = ((node.group_by ?? []) as HogNode[]).map((g) => {
      if (g.node === 'Constant' && typeof g.value === 'number' && Number.isInteger(g.value)) {
        if (g.value < 1 || g.value > columns.length) fail(`GROUP BY position ${g.value} is not in the select list`, g);
        return raw(String(g.value));
      }
      const at = aliasPosition(g);
      return at !== undefined ? raw(String(at)) : compile(g, scope).sql;
    });
    if (node.group_by_mode === 'all' && groupBy.length === 0) groupBy.push(raw('ALL'));
    if (node.having) having.push(compile(node.having as HogNode, scope).sql);
    const qualifies: Sql[] = node.qualify ? [compile(node.qualify as HogNode, scope).sql] : [];
    if (node.limit_by) qualifies.push(limitBy(node.limit_by as HogNode, (node.order_by ?? []) as HogNode[], columns, scope));
    const qualify = qualifies.length ? join(qualifies, ' AND ') : null;
    const orderBy = ((node.order_by ?? []) as HogNode[]).map((o) => {
      const at = aliasPosition((o.node === 'OrderExpr' ? o.expr : o) as HogNode);
      return at !== undefined ? raw(`${at}${o.order === 'DESC' ? ' DESC' : ' ASC'}`) : orderItem(o, scope, columns.length);
    });
    const given = node.limit ? num(compile(node.limit as HogNode, scope)) : null;
    const limitSql = limit ? limit(given) : given;
    const offset = node.offset ? num(compile(node.offset as HogNode, scope)) : null;

    // Join constraints first, then the FROM clause: which tables join their persons is known once every field is.
    const constraints: (Sql | null)[] = joins.map(({ j, src }, i) => {
      if (i === 0) return null;
      const kind = JOINS.get(String(j.join_type ?? 'JOIN'));
      if (kind === undefined) fail(`Unsupported join type: ${String(j.join_type)}`, j);
      if (kind === 'CROSS JOIN') return null;
      const constraint = j.constraint as HogNode | null;
      if (!constraint) fail(`${kind!} needs an ON or USING constraint`, j);
      if (constraint!.constraint_type !== 'USING') return compile(constraint!.expr as HogNode, scope).sql;
      const e = constraint!.expr as HogNode;
      const names = (e.node === 'Tuple' ? (e.exprs as HogNode[]) : [e]).map((f) => (f.node === 'Field' ? (f.chain as unknown[]).map(String) : fail('USING takes column names', f)));
      const left: Scope = { ...scope, sources: scope.sources.slice(0, i), aliases: new Map() };
      return join(names.map((chain) => {
        const r = tableField(src, chain) ?? fail(`Unable to resolve field: ${chain.join('.')}`, e);
        const [a, b] = coerced(field(e, chain, left), r);
        return sql`${a} = ${b}`;
      }), ' AND ');
    });
    const from: Sql[] = joins.map(({ j, src }, i) => {
      const table = sql`${tableSql(src)} AS ${raw(src.sqlAlias)}`;
      if (i === 0) return table;
      const kind = JOINS.get(String(j.join_type ?? 'JOIN'))!;
      const on = constraints[i];
      return on === null ? sql` ${raw(kind)} ${table}` : sql` ${raw(kind)} ${table} ON ${on}`;
    });

    // Every read of this SELECT's CTEs is compiled by now: the ones read are its WITH.
    const parts: Sql[] = scope.withs.length ? [sql`WITH ${join(scope.withs.map(({ compiled }) => sql`${raw(compiled!.name)} AS (${compiled!.part.sql})`), ', ')} `] : [];
    parts.push(sql`SELECT ${raw(node.distinct === true ? 'DISTINCT ' : '')}${join(columns.map((c) => sql`${c.expr.sql} AS ${raw(c.sqlName)}`), ', ')}`);
    if (arrayJoinClause !== null) from.push(arrayJoinClause);
    for (const { lateral } of scope.arrayJoins.values()) {
      if (lateral !== null) from.push(from.length ? sql` CROSS JOIN LATERAL ${lateral}` : lateral);
    }
    if (from.length) parts.push(sql` FROM ${{ parts: from }}`);
    if (where.length) parts.push(sql` WHERE ${join(where, ' AND ')}`);
    if (groupBy.length) parts.push(sql` GROUP BY ${join(groupBy, ', ')}`);
    if (having.length) parts.push(sql` HAVING ${join(having, ' AND ')}`);
    if (qualify) parts.push(sql` QUALIFY ${qualify}`);
    if (orderBy.length) parts.push(sql` ORDER BY ${join(orderBy, ', ')}`);
    if (limitSql) parts.push(sql` LIMIT ${limitSql}`);
    if (offset) parts.push(sql` OFFSET ${offset}`);
    return { sql: { parts }, columns };
  }

  // ARRAY JOIN a AS x, b AS y (ClickHouse's clause): a row per element, the arrays zipped
  // (a shorter one reads NULL past its end); LEFT ARRAY JOIN keeps a row whose arrays are
  // empty, its elements NULL. A lateral unnest joined after the FROM's tables; each alias
  // names its element wherever a column can be named.
  function arrayJoinFrom(node: HogNode, scope: Scope): Sql {
    if (scope.sources.length === 0) fail('ARRAY JOIN needs a FROM clause', node);
    const alias = id('a');
    const unnests = ((node.array_join_list ?? []) as HogNode[]).map((item, i) => {
      if (item.node !== 'Alias') fail('ARRAY JOIN arrays must have an alias, e.g. ARRAY JOIN arr AS x', item);
      const array = compile(item.expr as HogNode, scope);
      if (array.aggregate !== null) fail(`Aggregation '${array.aggregate}' cannot be inside ARRAY JOIN`, item);
      if (array.type !== 'Array' && array.type !== 'Unknown') fail('ARRAY JOIN needs an array: a property holding one reads as text, use JSONExtractArrayRaw(properties, key)', item);
      const name = String(item.alias);
      if (RESERVED.has(name.toLowerCase())) fail(`"${name}" cannot be an alias or identifier, as it's a reserved keyword`, item);
      scope.lambdas.set(name, `${alias}.v${i}`);
      return sql`unnest(${array.sql}) AS ${raw(`v${i}`)}`;
    });
    const lateral = sql`(SELECT ${join(unnests, ', ')}) AS ${raw(alias)}`;
    return node.array_join_op === 'LEFT ARRAY JOIN' ? sql` LEFT JOIN LATERAL ${lateral} ON TRUE` : sql` CROSS JOIN LATERAL ${lateral}`;
  }

  // LIMIT n [OFFSET m] BY exprs: the first n rows (after m) of each value of exprs, in the
  // query's ORDER BY (ClickHouse's), as a QUALIFY on their row number.
  function limitBy(spec: HogNode, order: HogNode[], columns: Part['columns'], scope: Scope): Sql {
    const count = (n: HogNode | null | undefined, what: string): number => {
      const value = n === null || n === undefined ? 0 : n.node === 'Constant' ? n.value : undefined;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) return fail(`LIMIT BY ${what} must be a whole number`, n ?? spec);
      return value;
    };
    const n = count(spec.n as HogNode, 'count');
    const offset = count(spec.offset_value as HogNode | null, 'offset');
    // A position in the select list is its column's expression (in a window it would be a constant).
    const value = (e: HogNode): Sql => {
      if (e.node === 'Constant' && typeof e.value === 'number' && Number.isInteger(e.value)) {
        if (e.value < 1 || e.value > columns.length) fail(`ORDER BY position ${e.value} is not in the select list`, e);
        return columns[e.value - 1].expr.sql;
      }
      return compile(e, scope).sql;
    };
    const by = ((spec.exprs ?? []) as HogNode[]).map(value);
    const ordered = order.map((o) => sql`${value((o.node === 'OrderExpr' ? o.expr : o) as HogNode)}${raw(o.order === 'DESC' ? ' DESC' : ' ASC')}`);
    const rowNumber = sql`row_number() OVER (PARTITION BY ${join(by, ', ')}${ordered.length ? sql` ORDER BY ${join(ordered, ', ')}` : raw('')})`;
    return sql`(${rowNumber} BETWEEN ${int(offset + 1)} AND ${int(offset + n)})`;
  }

  function query(node: HogNode, parent: Scope | null, limit: ((given: Sql | null) => Sql | null) | null = null): Part {
    if (node.node === 'SelectQuery') return selectQuery(node, parent, limit);
    if (node.node === 'SelectSetQuery') {
      const first = query(node.initial_select_query as HogNode, parent, limit);
      const parts: Sql[] = [sql`(${first.sql})`];
      for (const next of (node.subsequent_select_queries ?? []) as HogNode[]) {
        const op = SET_OPERATORS.get(String(next.set_operator));
        if (op === undefined) fail(`Unsupported set operator: ${String(next.set_operator)}`, next);
        parts.push(sql` ${raw(op!)} (${query(next.select_query as HogNode, parent, limit).sql})`);
      }
      return { sql: { parts }, columns: first.columns };
    }
    return fail(`Unsupported query: ${node.node}`, node);
  }

  // The top SELECT: PostHog's paginator when it has no LIMIT (one row more than asked, to
  // tell hasMore), else its LIMIT capped at MAX_ROWS; each SELECT of a set query likewise.
  function top(root: HogNode): CompiledQuery {
    const dropped = droppedGroupByModifier(source);
    if (dropped !== null) {
      throw new HogQLError(`${dropped.words} is not supported by hedgerow: it returns the groups only (add totals with a UNION ALL of a SELECT grouped by fewer columns)`, dropped.offset, dropped.offset + dropped.length);
    }
    const capped = (given: Sql | null): Sql => (given === null ? sql`${int(DEFAULT_ROWS)}` : sql`least(${given}, ${int(MAX_ROWS)})`);
    let paginated: CompiledQuery['paginated'] = null;
    let part: Part;
    if (root.node === 'SelectQuery' && !root.limit) {
      const offset = (root.offset as HogNode | null | undefined)?.value;
      paginated = { limit: DEFAULT_ROWS, offset: typeof offset === 'number' ? offset : 0 };
      part = query(root, null, () => sql`${int(DEFAULT_ROWS + 1)}`);
    } else {
      part = query(root, null, capped);
    }
    return {
      statement: part.sql,
      columns: part.columns.map((c) => ({ name: c.name, type: chType(c.expr, ctx.timezone), expr: c.expr })),
      paginated,
    };
  }

  // arrayJoin only where the planner puts the expression in a select list (a breakdown's value).
  function row(node: HogNode, allowArrayJoin: boolean): RowExpression {
    const scope = scopeOf(null);
    const src: Source = { name: 'events', sqlAlias: 'e', table: 'events', persons: false, sessions: false, columns: null, subquery: null, personAlias: 'p', row: true };
    scope.sources.push(src);
    if (!allowArrayJoin && containsArrayJoin(node)) fail('arrayJoin is not available in an insight expression here (it is in a breakdown)', node);
    const e = compile(node, scope);
    return { expr: e, persons: src.persons, arrayJoins: scope.arrayJoins.size };
  }

  return { top, row };
}

/** Whether an expression calls arrayJoin outside a subquery (it needs a FROM to join to). */
function containsArrayJoin(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(containsArrayJoin);
  if (typeof node !== 'object' || node === null) return false;
  const n = node as HogNode;
  if (n.node === 'SelectQuery' || n.node === 'SelectSetQuery') return false;
  if (n.node === 'Call' && n.name === 'arrayJoin') return true;
  return Object.values(n).some(containsArrayJoin);
}

