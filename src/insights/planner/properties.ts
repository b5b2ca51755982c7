// Property filters → SQL, with the flag evaluator's operator semantics (the shared src/matching/):
// case-insensitive exact matching, negative operators matching an absent property, numbers
// read from text, guarded regexes. Property keys and values are always bound parameters:
// a key becomes a JSON pointer parameter of json_extract_string, never SQL text.
//
// A property is absent when the event (or person) lacks it or holds JSON null. Operators
// whose reading of a value is too rich for SQL (dates, semantic versions) are decided in
// JavaScript by the flag evaluator's own tests over the distinct values the data holds
// (resolved by the runner before planning: see valueSetLookups).
import { COHORT_FILTER_TYPES, compileOperator, compileSafeRegex, isBooleanish, isTruthy, numberRepresentation, PROPERTY_OPERATORS, stringRepresentation } from '../../matching/index.js';
import { behaviouralPersons, type BehaviourContext } from './cohort-behaviour.js';
import { QueryError } from './errors.js';
import type { PropertyFilter } from './property-filter.js';
import { and, bool, float, ident, or, raw, sql, text, texts, type Sql } from './sql.js';

export type { PropertyFilter };

export interface PropertyGroup {
  type: 'AND' | 'OR';
  values: (PropertyFilter | PropertyGroup)[];
}

export type Properties = PropertyFilter[] | PropertyGroup | null | undefined;

/**
 * Event properties kept in columns of their own (columnar/schema.ts), by property name.
 * A Map: property names are data, and "constructor" or "__proto__" are property names too.
 */
export const HOT_COLUMNS: ReadonlyMap<string, string> = new Map([
  ['$session_id', 'session_id'],
  ['$current_url', 'current_url'],
  ['$pathname', 'pathname'],
  ['$host', 'host'],
  ['$browser', 'browser'],
  ['$os', 'os'],
  ['$device_type', 'device_type'],
  ['$referring_domain', 'referring_domain'],
  ['$lib', 'lib'],
]);

/** RFC 6901 pointer to a top-level key (DuckDB's JSON functions take it as a parameter). */
export function pointer(key: string): string {
  return `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

export type PropertySource = 'event' | 'person';

/** The property's text (NULL when absent): strings as they are, other JSON as its text. */
export function propertyText(source: PropertySource, key: string): Sql {
  if (source === 'event') {
    const column = HOT_COLUMNS.get(key);
    if (column !== undefined) return sql`e.${ident(column)}`;
    return sql`json_extract_string(e.properties, ${text(pointer(key))})`;
  }
  return sql`json_extract_string(p.properties, ${text(pointer(key))})`;
}

/** The property read as a number (NULL when absent or not a number). */
export function propertyNumber(source: PropertySource, key: string): Sql {
  return sql`TRY_CAST(${propertyText(source, key)} AS DOUBLE)`;
}

function isGroup(x: PropertyFilter | PropertyGroup): x is PropertyGroup {
  return Array.isArray((x as PropertyGroup).values) && ((x as PropertyGroup).type === 'AND' || (x as PropertyGroup).type === 'OR');
}

export function sourceOf(filter: PropertyFilter, attr: string): PropertySource {
  const type = filter.type ?? 'event';
  if (type === 'event' || type === 'person') return type;
  throw new QueryError(`Property filters of type "${type}" are not supported`, attr);
}

/** A filter of type "hogql" as a condition: its HogQL compiled over the events row (planner/hogql-row.ts). */
export type HogQLConditionOf = (source: string, attr: string) => Sql;

/** Every leaf filter of a properties value, in order. */
export function leaves(properties: Properties): PropertyFilter[] {
  if (properties === null || properties === undefined) return [];
  const out: PropertyFilter[] = [];
  const walk = (items: (PropertyFilter | PropertyGroup)[]) => {
    for (const item of items) {
      if (isGroup(item)) walk(item.values);
      else out.push(item);
    }
  };
  walk(Array.isArray(properties) ? properties : [properties]);
  return out;
}

export function usesPersons(properties: Properties): boolean {
  // A cohort reads its members' person properties (a static one, the persons' distinct ids).
  return leaves(properties).some((f) => (f.type ?? 'event') === 'person' || COHORT_FILTER_TYPES.has(f.type ?? ''));
}


/** A cohort as a query reads it: resolved by the API (src/flags/ keeps cohorts). */
export interface ResolvedCohort {
  id: number;
  // What HogQL's `IN COHORT 'name'` finds it by.
  name?: string | null;
  is_static: boolean;
  // A dynamic cohort's conditions: AND/OR groups of person filters and other cohorts.
  properties: unknown;
  // A static cohort's members.
  distinctIds: string[];
}

/** What property filters are planned with: resolved value sets and cohorts, the project. */
export interface PropertyContext {
  projectId: number;
  valueSets: ValueSets;
  cohorts: ReadonlyMap<number, ResolvedCohort>;
  // How filters of type "hogql" become conditions (absent: they are refused).
  hogql?: HogQLConditionOf;
  // What behavioural cohorts' time windows end at (absent: they are refused).
  nowMs?: number;
  // An action's condition on the events row, by id, for behavioural cohorts (absent: refused).
  action?: (id: number, attr: string) => Sql;
}

const VALUE_SET_OPERATORS = new Set([
  'is_date_before', 'is_date_after', 'is_date_exact',
  'semver_eq', 'semver_neq', 'semver_gt', 'semver_gte', 'semver_lt', 'semver_lte',
  'semver_tilde', 'semver_caret', 'semver_wildcard',
]);
const KNOWN_OPERATORS = new Set<string>(PROPERTY_OPERATORS);

/** A group filter's group type (PostHog's `group_type_index`, 0 to 4). */
export function groupTypeIndexOf(filter: PropertyFilter, attr: string): number {
  const n = (filter as { group_type_index?: unknown }).group_type_index;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 4) throw new QueryError('A group property filter needs a group_type_index from 0 to 4', `${attr}.group_type_index`);
  return n;
}

/**
 * A property of the scanned event's group of one type (its $group_N key, the group's
 * properties as the columnar store holds them now); NULL without one.
 */
export function groupPropertyText(typeIndex: number, key: string): Sql {
  return sql`(SELECT json_extract_string(g.properties, ${text(pointer(key))}) FROM groups g WHERE g.project = e.project AND g.type_index = ${typeIndex} AND g.key = ${propertyText('event', `$group_${typeIndex}`)})`;
}

// The filter's value as SQL text, wherever its type says the property lives.
function filterValueText(filter: PropertyFilter, attr: string): Sql {
  if (filter.type === 'group') return groupPropertyText(groupTypeIndexOf(filter, attr), filter.key);
  return propertyText(sourceOf(filter, attr), filter.key);
}

/** Identity of a value-set filter: the runner resolves each one once. */
export function valueSetKey(filter: PropertyFilter): string {
  const group = filter.type === 'group' ? [(filter as { group_type_index?: unknown }).group_type_index] : [];
  return JSON.stringify([filter.type ?? 'event', ...group, filter.key, filter.operator, filter.value]);
}

/** Filters whose matching values the runner must work out in JavaScript. */
export function valueSetLookups(properties: Properties): PropertyFilter[] {
  return leaves(properties).filter((f) => f.type !== 'hogql' && VALUE_SET_OPERATORS.has(f.operator ?? 'exact') && f.value !== null && f.value !== undefined);
}

/** The distinct values a value-set filter must be decided on: (text, JSON) pairs. */
export function valueSetQuery(filter: PropertyFilter, projectId: number): Sql {
  if (filter.type === 'group') {
    const ptr = text(pointer(filter.key));
    return sql`SELECT DISTINCT json_extract_string(g.properties, ${ptr}) AS t, json_extract(g.properties, ${ptr})::VARCHAR AS j FROM groups g
WHERE g.project = ${projectId} AND g.type_index = ${groupTypeIndexOf(filter, 'properties')} AND json_extract_string(g.properties, ${ptr}) IS NOT NULL`;
  }
  const source = sourceOf(filter, 'properties');
  const textExpr = propertyText(source, filter.key);
  const json = source === 'event' && HOT_COLUMNS.has(filter.key)
    ? sql`to_json(${textExpr})::VARCHAR`
    : sql`json_extract(${source === 'event' ? raw('e.properties') : raw('p.properties')}, ${text(pointer(filter.key))})::VARCHAR`;
  const from = source === 'event' ? raw('events e') : raw('persons p');
  const project = source === 'event' ? raw('e.project') : raw('p.project');
  return sql`SELECT DISTINCT ${textExpr} AS t, ${json} AS j FROM ${from} WHERE ${project} = ${projectId} AND ${textExpr} IS NOT NULL`;
}

/** Which of the distinct values pass the flag evaluator's test for the filter. */
export function matchingValues(filter: PropertyFilter, values: readonly { t: string; j: string }[], nowMs: number): string[] {
  const test = compileOperator(filter.operator ?? 'exact', filter.value);
  return values.filter((v) => test(JSON.parse(v.j), nowMs)).map((v) => v.t);
}

/** Resolved value sets, by valueSetKey. */
export type ValueSets = ReadonlyMap<string, readonly string[]>;

const ASCII_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ASCII_LOWER = 'abcdefghijklmnopqrstuvwxyz';

function asciiLowerSql(x: Sql): Sql {
  return sql`translate(${x}, ${raw(`'${ASCII_UPPER}'`)}, ${raw(`'${ASCII_LOWER}'`)})`;
}

function asciiLower(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

function polarized(x: Sql, test: Sql, negative: boolean): Sql {
  return negative ? sql`(${x} IS NULL OR NOT (${test}))` : sql`(${x} IS NOT NULL AND (${test}))`;
}

function exactTest(x: Sql, value: unknown): Sql {
  if (isBooleanish(value)) return sql`((lower(${x}) = 'true') = ${bool(isTruthy(value))})`;
  if (Array.isArray(value)) return sql`list_contains(${texts(value.map((v) => stringRepresentation(v).toLowerCase()))}, lower(${x}))`;
  return sql`lower(${x}) = ${text(stringRepresentation(value).toLowerCase())}`;
}

/** Cohort ids a cohort filter names, absent or not a whole number: an error naming it. */
export function cohortIdOf(filter: PropertyFilter, attr: string): number {
  const id = typeof filter.value === 'number' || typeof filter.value === 'string' ? Number(filter.value) : NaN;
  if (!Number.isSafeInteger(id) || id <= 0) throw new QueryError('A cohort filter needs a cohort id as its value', `${attr}.value`);
  return id;
}

// A cohort's members as a condition on a person id (`who`: the scanned event's person, `e`,
// persons joined as `p`; or a person row `p` when listing members).
function cohortSql(id: number, ctx: PropertyContext, attr: string, within: ReadonlySet<number>, who: Sql): Sql {
  const cohort = ctx.cohorts.get(id);
  if (cohort === undefined) throw new QueryError(`Cohort ${id} does not exist`, attr);
  if (within.has(id)) throw new QueryError(`Cohort ${id} names itself through its filters`, attr);
  if (cohort.is_static) {
    if (cohort.distinctIds.length === 0) return raw('FALSE');
    return sql`(${who} IN (SELECT d.person_id FROM person_distinct_ids d WHERE d.project = ${ctx.projectId} AND list_contains(${texts(cohort.distinctIds)}, d.distinct_id)))`;
  }
  const inner = new Set(within).add(id);
  const walk = (item: PropertyFilter | PropertyGroup, path: string): Sql => {
    if (isGroup(item)) {
      const parts = item.values.map((v, i) => walk(v, `${path}.values.${i}`));
      return item.type === 'OR' ? or(parts) : and(parts);
    }
    const type = item.type ?? 'person';
    if (COHORT_FILTER_TYPES.has(type)) return polarCohort(item, cohortSql(cohortIdOf(item, path), ctx, path, inner, who));
    if (type === 'behavioral') return polarCohort(item, sql`(${who} IN (${behaviouralPersons(item, behaviourContext(ctx, path), path)}))`);
    if (type !== 'person') {
      throw new QueryError(`Cohort ${id} has ${type} filters: hedgerow computes cohorts of person properties, events and static cohorts`, attr);
    }
    const negated = (item as { negation?: unknown }).negation === true;
    const test = filterSql({ ...item, type: 'person' }, ctx, path);
    return negated ? sql`(NOT coalesce(${test}, FALSE))` : test;
  };
  const group = cohort.properties as PropertyGroup | null | undefined;
  // A cohort without conditions has no members.
  if (!group || !isGroup(group) || group.values.length === 0) return raw('FALSE');
  return walk(group, `${attr}(cohort ${id})`);
}

function behaviourContext(ctx: PropertyContext, attr: string): BehaviourContext {
  if (ctx.nowMs === undefined) throw new QueryError('Behavioral cohorts are not computed here', attr);
  return {
    projectId: ctx.projectId, nowMs: ctx.nowMs, eventFilter: (f, at) => filterSql({ ...f, type: 'event' }, ctx, at),
    action: (id, at) => {
      if (ctx.action === undefined) throw new QueryError(`Action ${id} does not exist`, at);
      return ctx.action(id, at);
    },
  };
}

// A cohort condition, turned around by `operator: not_in` or `negation` (no member is a match).
function polarCohort(filter: PropertyFilter, members: Sql): Sql {
  const negated = filter.operator === 'not_in' || (filter as { negation?: unknown }).negation === true;
  return negated ? sql`(NOT coalesce(${members}, FALSE))` : sql`coalesce(${members}, FALSE)`;
}

/** Whether the scanned event's person (`e`, persons joined as `p`) is one of the cohort's members. */
export function cohortCondition(id: number, ctx: PropertyContext, attr: string): Sql {
  return sql`coalesce(${cohortSql(id, ctx, attr, new Set(), raw('e.person_id'))}, FALSE)`;
}

/** A cohort's members: one SELECT of `person_id` over the project's persons (PostHog's cohort_people rows). */
export function cohortMembersSql(id: number, ctx: PropertyContext, attr: string): Sql {
  return sql`SELECT p.id AS person_id FROM persons p WHERE p.project = ${ctx.projectId} AND coalesce(${cohortSql(id, ctx, attr, new Set(), raw('p.id'))}, FALSE)`;
}

/** One leaf filter as a boolean SQL expression. */
export function filterSql(filter: PropertyFilter, ctx: PropertyContext, attr: string): Sql {
  const { hogql } = ctx;
  if (COHORT_FILTER_TYPES.has(filter.type ?? '')) return polarCohort(filter, cohortSql(cohortIdOf(filter, attr), ctx, attr, new Set(), raw('e.person_id')));
  if (typeof filter.key !== 'string') throw new QueryError('A property filter needs a key', attr);
  // PostHog's HogQL filter: the key is an expression, operator and value are not read.
  if (filter.type === 'hogql') {
    if (hogql === undefined) throw new QueryError('Property filters of type "hogql" are not supported here', attr);
    return sql`coalesce(${hogql(filter.key, attr)}, FALSE)`;
  }
  const operator = filter.operator ?? 'exact';
  if (!KNOWN_OPERATORS.has(operator)) throw new QueryError(`Unknown property operator "${operator}"`, attr);
  return operatorSql(filter, filterValueText(filter, attr), ctx, attr);
}

/** A filter's operator and value applied to `x`, its property's value as text (NULL: not set). */
export function operatorSql(filter: PropertyFilter, x: Sql, ctx: PropertyContext, attr: string): Sql {
  const { valueSets } = ctx;
  const operator = filter.operator ?? 'exact';
  if (operator === 'is_set') return sql`(${x} IS NOT NULL)`;
  if (operator === 'is_not_set') return sql`(${x} IS NULL)`;
  const value = filter.value;
  // A filter without a value matches nothing, whatever the operator (as flags).
  if (value === null || value === undefined) return raw('FALSE');
  if (VALUE_SET_OPERATORS.has(operator)) {
    const matching = valueSets.get(valueSetKey(filter));
    if (matching === undefined) throw new Error(`value set not resolved for ${valueSetKey(filter)}`);
    return sql`(${x} IS NOT NULL AND list_contains(${texts(matching)}, ${x}))`;
  }
  const lx = asciiLowerSql(x);
  switch (operator) {
    case 'exact':
      return polarized(x, exactTest(x, value), false);
    case 'is_not':
      return polarized(x, exactTest(x, value), true);
    case 'icontains':
    case 'not_icontains':
      return polarized(x, sql`contains(${lx}, ${text(asciiLower(stringRepresentation(value)))})`, operator === 'not_icontains');
    case 'icontains_multi':
    case 'not_icontains_multi': {
      const needles = (Array.isArray(value) ? value : [value]).map((v) => sql`contains(${lx}, ${text(asciiLower(stringRepresentation(v)))})`);
      return polarized(x, or(needles), operator === 'not_icontains_multi');
    }
    case 'starts_with':
    case 'not_starts_with':
      return polarized(x, sql`starts_with(${lx}, ${text(asciiLower(stringRepresentation(value)))})`, operator === 'not_starts_with');
    case 'ends_with':
    case 'not_ends_with':
      return polarized(x, sql`suffix(${lx}, ${text(asciiLower(stringRepresentation(value)))})`, operator === 'not_ends_with');
    case 'regex':
    case 'not_regex': {
      const pattern = stringRepresentation(value);
      const negative = operator === 'not_regex';
      // An invalid pattern matches nothing (a negative one: only the absent property).
      if (compileSafeRegex(pattern) === undefined) return negative ? sql`(${x} IS NULL)` : raw('FALSE');
      return polarized(x, sql`regexp_matches(${x}, ${text(pattern)})`, negative);
    }
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const bound = numberRepresentation(value);
      if (bound === undefined || Number.isNaN(bound)) return raw('FALSE');
      const op = raw({ gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator]);
      return sql`(TRY_CAST(${x} AS DOUBLE) ${op} ${float(bound)})`;
    }
    case 'between':
    case 'not_between': {
      const negative = operator === 'not_between';
      const ok = Array.isArray(value) && value.length === 2;
      const low = ok ? numberRepresentation(value[0]) : undefined;
      const high = ok ? numberRepresentation(value[1]) : undefined;
      if (low === undefined || high === undefined || Number.isNaN(low) || Number.isNaN(high) || low > high) {
        return negative ? sql`(${x} IS NULL)` : raw('FALSE');
      }
      const n = sql`TRY_CAST(${x} AS DOUBLE)`;
      return sql`(CASE WHEN ${x} IS NULL THEN ${bool(negative)} WHEN ${n} IS NULL OR isnan(${n}) THEN FALSE ELSE (${n} BETWEEN ${float(low)} AND ${float(high)}) <> ${bool(negative)} END)`;
    }
    default:
      throw new QueryError(`Unknown property operator "${operator}"`, attr);
  }
}

/** A properties value (a list, ANDed, or nested AND/OR groups) as one boolean expression. */
export function propertiesSql(properties: Properties, ctx: PropertyContext, attr: string): Sql {
  if (properties === null || properties === undefined) return raw('TRUE');
  const walk = (item: PropertyFilter | PropertyGroup, path: string): Sql => {
    if (isGroup(item)) {
      const parts = item.values.map((v, i) => walk(v, `${path}.values.${i}`));
      return item.type === 'OR' ? or(parts) : and(parts);
    }
    return filterSql(item, ctx, path);
  };
  if (Array.isArray(properties)) return and(properties.map((p, i) => walk(p, `${attr}.${i}`)));
  return walk(properties, attr);
}
