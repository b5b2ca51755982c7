// A small, safe part of HogQL (parsed by PostHog's grammar: src/insights/hogql.ts) turned
// into SQL over `events e` (and `persons p`): fields of the event and its person, their
// properties, constants, comparisons, boolean logic, arithmetic and a few functions. Every
// constant and property name is a bound parameter; anything else is refused with a clear
// error rather than guessed at.
import { actionByReference, actionSql, actionUsesPersons, type ResolvedAction } from './actions.js';
import { QueryError } from './errors.js';
import { HOT_COLUMNS, pointer, type PropertyContext } from './properties.js';
import { bool, float, int, join, raw, sql, text, type Sql } from './sql.js';
import { catalogueCall } from './hogql/events-bridge.js';
import { cohortMembership, HogQLError, zoneSql, type HogNode, type HogQLCohorts } from './hogql/expr.js';
import { EVENT_OWNER, PERSON_OWNER, propertyTypeOf, typedProperty } from './hogql/property-types.js';
import type { PropertyTypes } from '../../definitions/index.js';
import type { HogExpr, Translated } from './hogql-types.js';


function value(s: Sql, type: string, extra: Partial<Translated> = {}): Translated {
  return { sql: s, asText: sql`CAST(${s} AS VARCHAR)`, asNumber: sql`TRY_CAST(${s} AS DOUBLE)`, type, decode: 'plain', aggregate: false, persons: false, ...extra };
}

// A property as its definition types it (PostHog's PropertySwapper, as hogql/property-types.ts
// for HogQLQuery): Numeric a number, Boolean true/false/NULL, DateTime an instant; otherwise,
// or with no definition, the value as it was sent (JSON), read as text by text functions.
function propertyOf(source: 'e' | 'p', key: string, env: TranslateEnv): Translated {
  const column = source === 'e' ? HOT_COLUMNS.get(key) : undefined;
  const bag = raw(`${source}.properties`);
  const textSql = column !== undefined ? sql`e.${raw(column)}` : sql`json_extract_string(${bag}, ${text(pointer(key))})`;
  const persons = source === 'p';
  const type = propertyTypeOf(env.propertyTypes, source === 'e' ? EVENT_OWNER : PERSON_OWNER, [key]);
  if (type === 'Numeric' || type === 'Boolean' || type === 'DateTime') {
    const typed = typedProperty({ sql: textSql, type: 'String', aggregate: null, nullable: true }, type, zoneSql(env.zone));
    if (type === 'DateTime') return { sql: sql`epoch_us(${typed.sql})`, asText: typed.sql, asNumber: sql`epoch_us(${typed.sql})`, type: "DateTime64(6, 'UTC')", decode: 'timestamp', aggregate: false, persons };
    const asNumber = type === 'Numeric' ? typed.sql : sql`CAST(${typed.sql} AS INTEGER)`;
    return { sql: typed.sql, asText: textSql, asNumber, type: type === 'Numeric' ? 'Float64' : 'Bool', decode: 'plain', aggregate: false, persons };
  }
  const jsonSql = column !== undefined ? sql`to_json(e.${raw(column)})::VARCHAR` : sql`json_extract(${bag}, ${text(pointer(key))})::VARCHAR`;
  return { sql: jsonSql, asText: textSql, asNumber: sql`TRY_CAST(${textSql} AS DOUBLE)`, type: 'String', decode: 'json', aggregate: false, persons };
}

const STAR = raw(`json_object('uuid', e.uuid::VARCHAR, 'event', e.event, 'properties', e.properties, 'timestamp', epoch_us(e.timestamp), 'team_id', e.project, 'distinct_id', e.distinct_id, 'person_id', e.person_id::VARCHAR)::VARCHAR`);

// PostHog's person_display_name: the person's email, name or username (its default
// display properties), else the distinct id; with the person's id.
const DISPLAY_NAME = raw(`json_object('display_name', coalesce(${['email', 'name', 'username'].map((k) => `json_extract_string(p.properties, '/${k}')`).join(', ')}, e.distinct_id), 'id', e.person_id::VARCHAR)::VARCHAR`);

function field(chain: unknown[], attr: string, env: TranslateEnv): Translated {
  const parts = chain.map(String);
  const [head, ...rest] = parts;
  if (head === '*' && rest.length === 0) return { ...value(STAR, 'Tuple'), decode: 'star' };
  if (rest.length === 0) {
    switch (head) {
      case 'event':
      case 'distinct_id':
        return value(sql`e.${raw(head)}`, 'String');
      case 'uuid':
        return value(raw('e.uuid::VARCHAR'), 'UUID');
      case 'person_id':
        return value(raw('e.person_id::VARCHAR'), 'UUID');
      case 'timestamp':
        return { ...value(raw('epoch_us(e.timestamp)'), "DateTime64(6, 'UTC')"), asText: raw('e.timestamp'), asNumber: raw('epoch_us(e.timestamp)'), decode: 'timestamp' };
      case 'properties':
        return { ...value(raw('e.properties::VARCHAR'), 'String'), decode: 'json' };
    }
  }
  if (head === 'properties' && rest.length === 1) return propertyOf('e', rest[0], env);
  if (head === 'person' && rest.length === 1 && rest[0] === 'id') return value(raw('e.person_id::VARCHAR'), 'UUID');
  if (head === 'person_display_name' && rest.length === 0) return { ...value(DISPLAY_NAME, 'Tuple'), decode: 'json', persons: true };
  if (head === 'person' && rest.length === 1 && rest[0] === 'properties') return { ...value(raw('p.properties::VARCHAR'), 'String'), decode: 'json', persons: true };
  if (head === 'person' && rest[0] === 'properties' && rest.length === 2) return propertyOf('p', rest[1], env);
  throw new QueryError(`Unknown field "${parts.join('.')}"`, attr);
}

function constant(v: unknown, attr: string): Translated {
  if (v === null) return value(raw('NULL'), 'Nullable(Nothing)');
  if (typeof v === 'string') return { ...value(sql`${text(v)}`, 'String'), asText: sql`${text(v)}` };
  if (typeof v === 'boolean') return value(sql`${bool(v)}`, 'Bool');
  if (typeof v === 'number') {
    const p = Number.isSafeInteger(v) ? int(v) : float(v);
    return { ...value(sql`${p}`, 'Float64'), asNumber: sql`${p}` };
  }
  throw new QueryError('Unsupported constant', attr);
}

const COMPARE = new Map([['==', '='], ['!=', '<>'], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>=']]);
const LIKE_OPERATORS = new Map([['like', 'LIKE'], ['ilike', 'ILIKE'], ['not like', 'NOT LIKE'], ['not ilike', 'NOT ILIKE']]);
const AGGREGATES = new Set(['count', 'uniq', 'sum', 'avg', 'min', 'max']);

function isStringLike(t: Translated): boolean {
  return t.type === 'String' || t.type === 'UUID';
}

function any(...xs: Translated[]): Pick<Translated, 'aggregate' | 'persons'> {
  return { aggregate: xs.some((x) => x.aggregate), persons: xs.some((x) => x.persons) };
}

/** What an expression is translated in: the project's zone, the actions matchesAction may name, its cohorts, the properties' types. */
export interface TranslateEnv {
  zone: string;
  actions: ReadonlyMap<number, ResolvedAction>;
  properties: PropertyContext;
  cohorts: HogQLCohorts;
  propertyTypes?: PropertyTypes;
}

// `who IN COHORT ref` as the HogQL compiler writes it (hogql/expr.ts); its errors name the field.
function inCohort(who: Sql, ref: HogExpr, negated: boolean, attr: string, env: TranslateEnv): Translated {
  try {
    return value(cohortMembership(env.cohorts, who, ref as HogNode, negated, ref as HogNode), 'Bool');
  } catch (err) {
    if (err instanceof HogQLError) throw new QueryError(err.message, attr);
    throw err;
  }
}

// matchesAction(id or name): the action's steps as the event's condition (planner/actions.ts).
function matchesAction(expr: HogExpr, attr: string, env: TranslateEnv): Translated {
  const [arg, ...more] = expr.args as HogExpr[];
  const ref = more.length === 0 && arg?.node === 'Constant' && (typeof arg.value === 'string' || (typeof arg.value === 'number' && Number.isSafeInteger(arg.value))) ? (arg.value as string | number) : null;
  if (ref === null) throw new QueryError("matchesAction takes one constant argument, the action's id or name: matchesAction(7) or matchesAction('Signed up')", attr);
  const action = actionByReference(env.actions, ref);
  if (action === undefined) throw new QueryError(typeof ref === 'number' ? `Action ${ref} does not exist in this project` : `No action named '${ref}' exists in this project`, attr);
  return value(sql`coalesce(${actionSql(action, env.properties, attr)}, FALSE)`, 'Bool', { persons: actionUsesPersons(action) });
}

export function translate(expr: HogExpr, attr: string, env: TranslateEnv): Translated {
  switch (expr.node) {
    case 'Field':
      return field(expr.chain as unknown[], attr, env);
    case 'Constant':
      return constant(expr.value, attr);
    case 'Alias':
      return translate(expr.expr as HogExpr, attr, env);
    case 'And':
    case 'Or': {
      const parts = (expr.exprs as HogExpr[]).map((e) => translate(e, attr, env));
      const s = { parts: ['(', join(parts.map((p) => p.sql), expr.node === 'And' ? ' AND ' : ' OR '), ')'] };
      return value(s, 'Bool', any(...parts));
    }
    case 'Not': {
      const inner = translate(expr.expr as HogExpr, attr, env);
      return value(sql`(NOT ${inner.sql})`, 'Bool', any(inner));
    }
    case 'CompareOperation':
      return compare(expr, attr, env);
    case 'ArithmeticOperation': {
      const op = expr.op as string;
      if (!['+', '-', '*', '/', '%'].includes(op)) throw new QueryError(`Unsupported operator "${op}"`, attr);
      const a = translate(expr.left as HogExpr, attr, env);
      const b = translate(expr.right as HogExpr, attr, env);
      const s = op === '/' ? sql`(${a.asNumber} / nullif(${b.asNumber}, 0))` : sql`(${a.asNumber} ${raw(op)} ${b.asNumber})`;
      return { ...value(s, 'Float64'), asNumber: s, ...any(a, b) };
    }
    case 'Call':
      return call(expr, attr, env);
    case 'ArrayAccess': {
      // properties['$feature/x']: a property named in brackets, as a dotted one.
      const target = expr.array as HogExpr;
      const key = expr.property as HogExpr;
      if (target.node === 'Field' && key.node === 'Constant' && typeof key.value === 'string') return field([...(target.chain as unknown[]), key.value], attr, env);
      throw new QueryError('Unsupported HogQL expression "ArrayAccess": only properties[\'name\'] is read here', attr);
    }
    default:
      throw new QueryError(`Unsupported HogQL expression "${expr.node}"`, attr);
  }
}

function compare(expr: HogExpr, attr: string, env: TranslateEnv): Translated {
  const op = expr.op as string;
  const left = translate(expr.left as HogExpr, attr, env);
  const right = expr.right as HogExpr;
  if (op === 'in cohort' || op === 'not in cohort') return { ...inCohort(sql`TRY_CAST(${left.asText} AS UUID)`, right, op === 'not in cohort', attr, env), ...any(left) };
  if (op === 'in' || op === 'not in') {
    const items = right.node === 'Tuple' || right.node === 'Array' ? (right.exprs as HogExpr[]) : [right];
    const values = items.map((i) => translate(i, attr, env));
    const s = sql`(${left.asText} ${raw(op === 'in' ? 'IN' : 'NOT IN')} (${join(values.map((v) => v.asText), ', ')}))`;
    return value(s, 'Bool', any(left, ...values));
  }
  const r = translate(right, attr, env);
  const flags = any(left, r);
  if (r.type === 'Nullable(Nothing)' || left.type === 'Nullable(Nothing)') {
    const other = r.type === 'Nullable(Nothing)' ? left : r;
    if (op === '==') return value(sql`(${other.asText} IS NULL)`, 'Bool', flags);
    if (op === '!=') return value(sql`(${other.asText} IS NOT NULL)`, 'Bool', flags);
  }
  const like = LIKE_OPERATORS.get(op);
  if (like !== undefined) return value(sql`(${left.asText} ${raw(like)} ${r.asText})`, 'Bool', flags);
  if (op === '=~' || op === '!~' || op === '=~*' || op === '!~*') {
    const re = op.endsWith('*') ? sql`'(?i)' || ${r.asText}` : r.asText;
    const m = sql`regexp_matches(${left.asText}, ${re})`;
    return value(op.startsWith('!') ? sql`(NOT ${m})` : m, 'Bool', flags);
  }
  const cmp = COMPARE.get(op);
  if (cmp === undefined) throw new QueryError(`Unsupported comparison "${op}"`, attr);
  // Timestamps compare as instants; strings as text; anything against a number as numbers.
  if (left.decode === 'timestamp' || r.decode === 'timestamp') {
    const asTs = (t: Translated) => (t.decode === 'timestamp' ? t.asText : sql`CAST(${t.asText} AS TIMESTAMPTZ)`);
    return value(sql`(${asTs(left)} ${raw(cmp)} ${asTs(r)})`, 'Bool', flags);
  }
  const textual = (isStringLike(left) || left.decode === 'json') && (isStringLike(r) || r.decode === 'json');
  return value(textual ? sql`(${left.asText} ${raw(cmp)} ${r.asText})` : sql`(${left.asNumber} ${raw(cmp)} ${r.asNumber})`, 'Bool', flags);
}

function call(expr: HogExpr, attr: string, env: TranslateEnv): Translated {
  const name = String(expr.name);
  if (name === 'matchesAction') return matchesAction(expr, attr, env);
  // inCohort(c) / notInCohort(c): the event's person_id IN COHORT c.
  if (name === 'inCohort' || name === 'notInCohort') {
    const args = expr.args as HogExpr[];
    if (args.length !== 1) throw new QueryError(`Function '${name}' expects 1 argument, found ${args.length}`, attr);
    return inCohort(raw('e.person_id'), args[0], name === 'notInCohort', attr, env);
  }
  const args = (expr.args as HogExpr[]).map((a) => translate(a, attr, env));
  const distinct = expr.distinct === true;
  if (name === 'not' && args.length === 1) return value(sql`(NOT ${args[0].sql})`, 'Bool', any(...args));
  if (AGGREGATES.has(name)) {
    if (args.some((a) => a.aggregate)) throw new QueryError('Aggregations cannot nest', attr);
    let s: Sql;
    if (name === 'count' && args.length === 0) s = raw('count(*)');
    else if (args.length !== 1) throw new QueryError(`${name}() takes one argument`, attr);
    else if (name === 'count') s = distinct ? sql`count(DISTINCT ${args[0].asText})` : sql`count(${args[0].asText})`;
    else if (name === 'uniq') s = sql`count(DISTINCT ${args[0].asText})`;
    // min and max of text (a property without a Numeric definition) compare it as text, as ClickHouse does a String.
    else if ((name === 'min' || name === 'max') && isStringLike(args[0])) s = sql`${raw(name)}(${args[0].asText})`;
    else s = sql`${raw(name)}(${args[0].asNumber})`;
    const type = name === 'count' || name === 'uniq' ? 'UInt64' : (name === 'min' || name === 'max') && isStringLike(args[0]) ? 'String' : 'Float64';
    return { ...value(s, type), asNumber: s, aggregate: true, persons: args.some((a) => a.persons) };
  }
  switch (name) {
    case 'lower':
    case 'upper':
    case 'length': {
      if (args.length !== 1) throw new QueryError(`${name}() takes one argument`, attr);
      const s = sql`${raw(name)}(${args[0].asText})`;
      return { ...value(s, name === 'length' ? 'UInt64' : 'String'), asText: s, ...any(...args) };
    }
    case 'toString':
      if (args.length !== 1) throw new QueryError('toString() takes one argument', attr);
      return { ...value(args[0].asText, 'String'), asText: args[0].asText, ...any(...args) };
    case 'now':
      return { ...value(raw('epoch_us(now())'), "DateTime64(6, 'UTC')"), asText: raw('now()'), decode: 'timestamp' };
    default:
      // The rest of PostHog's functions, from the HogQL catalogue.
      return catalogueCall(expr, args, env.zone, attr);
  }
}
