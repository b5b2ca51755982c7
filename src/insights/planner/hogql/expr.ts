// What the HogQL compiler (./compile.ts) and its function catalogue (./functions/) share:
// a compiled expression (SQL, its HogQL type, whether it aggregates), the context a query is
// compiled in, the compile error with its position, and the coercions between types that
// PostHog applies (property values are text; text compared with a number reads as one).
import type { ResolvedAction } from '../actions.js';
import type { PropertyTypes } from '../../../definitions/index.js';
import { QueryError } from '../errors.js';
import type { PropertyContext } from '../properties.js';
import { join, raw, sql, text, type Sql } from '../sql.js';

/** The HogQL types the compiler tracks (ClickHouse's names for them are in chType). */
export type HType = 'String' | 'Int' | 'UInt' | 'Float' | 'Bool' | 'DateTime' | 'Date' | 'UUID' | 'Array' | 'Tuple' | 'Interval' | 'Null' | 'Lambda' | 'Unknown';

export interface Expr {
  sql: Sql;
  type: HType;
  /** The aggregate function at its root or inside it (not under a window), if any. */
  aggregate: string | null;
  /** Whether it can be NULL (base columns and constants cannot). */
  nullable: boolean;
  /**
   * A DateTime's own time zone (toTimeZone, toDateTime(x, zone)), when not the project's: its
   * local-time functions read that wall clock, its column's type and values are in it.
   */
  zone?: string;
  /** The constant's value, when the expression is a literal (units, formats, JSON keys). */
  constant?: { value: unknown };
  /**
   * A typed property's text as stored (./property-types.ts): what it reads as text, as
   * ClickHouse's toString of the typed value gives it (30, not 30.0).
   */
  text?: Sql;
  /**
   * A property (or a whole properties bag) read untyped, as the event or person carried it: its
   * JSON text. EventsQuery answers such a column with the value itself (a number as a number,
   * an object as an object), where HogQL reads its text.
   */
  json?: Sql;
}

export interface HogNode {
  node: string;
  start?: { offset: number };
  end?: { offset: number };
  [key: string]: unknown;
}

export interface CompileContext {
  projectId: number;
  /** The project's IANA time zone. */
  timezone: string;
  weekStart: 0 | 1;
  /** `{name}` placeholders. */
  values: Record<string, unknown>;
  /** `{variables.code_name}` placeholders, by code name. */
  variables: Record<string, unknown>;
  /** HogQLFilters for `{filters}` (null: none given). */
  filters: HogQLFilters | null;
  /** The actions matchesAction may name: the query's project's, as the API resolved them (planner/actions.ts). */
  actions?: ReadonlyMap<number, ResolvedAction>;
  /** What their steps' property filters are planned with (value sets, cohorts). */
  properties?: PropertyContext;
  /** The project's cohorts (`IN COHORT`, inCohort, the cohort_people table); absent: refused. */
  cohorts?: HogQLCohorts;
  /** The types of the properties the query reads, by their definitions (./property-types.ts); absent: all text. */
  propertyTypes?: PropertyTypes;
}

/**
 * A HogQLQuery's `filters` as `{filters}` applies them: the date range as instants (µs; null:
 * unbounded), its property filters with the project's test account filters (when
 * filterTestAccounts) as one condition over the planners' events row (`e`, its person `p`),
 * and its session property filters, on the session's fields.
 */
export interface HogQLFilters {
  fromUs: number | null;
  toUs: number | null;
  properties: { condition: Sql; persons: boolean } | null;
  /** Its session property filters, given how to read a session property's value as text. */
  sessions: ((valueOf: (key: string) => Sql) => Sql) | null;
}

export interface HogQLCohorts {
  /** A cohort's members, by id or name, as a SELECT of `person_id`; null when there is none. */
  members(ref: number | string): Sql | null;
  /** Every cohort's members as rows of (`cohort_id`, `person_id`). */
  people(): Sql;
}

/**
 * `who IN COHORT ref` (negated: NOT IN): ref a constant cohort id or name, resolved among the
 * query's project's cohorts only, as PostHog resolves it; anything else is refused.
 */
export function cohortMembership(cohorts: HogQLCohorts | undefined, who: Sql, ref: HogNode, negated: boolean, node: HogNode): Sql {
  if (cohorts === undefined) return fail('Cohorts are not available in HogQL here', node);
  const value = ref.node === 'Constant' ? ref.value : undefined;
  if (typeof value !== 'number' && typeof value !== 'string') return fail('IN COHORT takes a cohort id or name as a constant', ref);
  const members = cohorts.members(value);
  if (members === null) return fail(`Could not find a cohort with the ${typeof value === 'number' ? 'id' : 'name'} ${JSON.stringify(value)}`, ref);
  return sql`(${who} ${raw(negated ? 'NOT IN' : 'IN')} (SELECT m.person_id FROM (${members}) m))`;
}

/** A query PostHog would refuse, worded as PostHog words it. */
export class HogQLError extends QueryError {
  constructor(message: string, readonly start: number | null = null, readonly end: number | null = null) {
    super(message, null);
  }
}

export const fail = (message: string, node?: HogNode): never => {
  throw new HogQLError(message, node?.start?.offset ?? null, node?.end?.offset ?? null);
};

export function expr(s: Sql, type: HType, from: readonly Expr[] = [], extra: Partial<Expr> = {}): Expr {
  return { sql: s, type, aggregate: from.find((e) => e.aggregate !== null)?.aggregate ?? null, nullable: from.some((e) => e.nullable), ...extra };
}

const NUMERIC = new Set<HType>(['Int', 'UInt', 'Float', 'Bool']);
export const isNumeric = (e: Expr) => NUMERIC.has(e.type);

/** The value read as a number: text as a number or NULL (PostHog's toFloat), the rest as it is. */
export function num(e: Expr): Sql {
  if (e.type === 'String' || e.type === 'UUID') return sql`TRY_CAST(${e.sql} AS DOUBLE)`;
  if (e.type === 'Bool') return sql`CAST(${e.sql} AS INTEGER)`;
  return e.sql;
}

/** The value as text. */
export function str(e: Expr): Sql {
  return e.type === 'String' ? e.sql : e.text ?? sql`CAST(${e.sql} AS VARCHAR)`;
}

const OFFSET = /(?:Z|[+-]\d\d:?\d\d)$/i;

/**
 * The value as an instant (TIMESTAMPTZ): text without an offset reads in `tz`, as PostHog reads it.
 * Text that is no time reads as NULL, except where `strict`: a comparison of an instant with text,
 * which ClickHouse refuses ("Cannot convert string … to type DateTime64") rather than answer false.
 */
export function instant(e: Expr, tz: Sql, strict = false): Sql {
  switch (e.type) {
    case 'DateTime':
      return e.sql;
    case 'Date':
      return sql`timezone(${tz}, CAST(${e.sql} AS TIMESTAMP))`;
    case 'Int':
    case 'UInt':
    case 'Float':
      return sql`to_timestamp(${e.sql})`;
    case 'String': {
      const cast = raw(strict ? 'CAST' : 'TRY_CAST');
      if (e.constant !== undefined && typeof e.constant.value === 'string') {
        return OFFSET.test(e.constant.value.trim()) ? sql`${cast}(${e.sql} AS TIMESTAMPTZ)` : sql`timezone(${tz}, ${cast}(${e.sql} AS TIMESTAMP))`;
      }
      return sql`(CASE WHEN regexp_matches(${e.sql}, ${text(OFFSET.source)}, 'i') THEN ${cast}(${e.sql} AS TIMESTAMPTZ) ELSE timezone(${tz}, ${cast}(${e.sql} AS TIMESTAMP)) END)`;
    }
    default:
      return sql`TRY_CAST(${e.sql} AS TIMESTAMPTZ)`;
  }
}

/**
 * The zone of a UTC project: the columnar store's connections run with TimeZone 'UTC'
 * (columnar/database.ts), so its wall clock is a plain cast, no per-row zone conversion.
 */
export const SESSION_ZONE: Sql = { parts: ["'UTC'"] };

/** A zone's name as SQL: UTC the session's own, any other bound. */
export function zoneSql(zone: string): Sql {
  return zone === 'UTC' ? SESSION_ZONE : sql`${text(zone)}`;
}

/** The project's (or the value's own) wall-clock time, a TIMESTAMP, for calendar functions. */
export function wallClock(e: Expr, tz: Sql): Sql {
  if (e.type === 'Date') return sql`CAST(${e.sql} AS TIMESTAMP)`;
  const own = e.zone === undefined ? tz : zoneSql(e.zone);
  if (own === SESSION_ZONE) return sql`CAST(${instant(e, tz)} AS TIMESTAMP)`;
  return sql`timezone(${own}, ${instant(e, tz)})`;
}

/** The value as a calendar date. */
export function date(e: Expr, tz: Sql): Sql {
  if (e.type === 'Date') return e.sql;
  if (e.type === 'String') return sql`TRY_CAST(${e.sql} AS DATE)`;
  return sql`CAST(${wallClock(e, tz)} AS DATE)`;
}

/** ClickHouse's name of a column's type, as PostHog's `types` show it. */
export function chType(e: Expr, timezone: string): string {
  const plain = (() => {
    switch (e.type) {
      case 'String': return 'String';
      case 'Int': return 'Int64';
      case 'UInt': return 'UInt64';
      case 'Float': return 'Float64';
      case 'Bool': return 'Bool';
      case 'DateTime': return `DateTime64(6, '${e.zone ?? timezone}')`;
      case 'Date': return 'Date';
      case 'UUID': return 'UUID';
      case 'Array': return 'Array(String)';
      case 'Tuple': return 'Tuple';
      case 'Interval': return 'IntervalSecond';
      case 'Null': return 'Nothing';
      default: return 'String';
    }
  })();
  return e.nullable && e.type !== 'Array' && e.type !== 'Tuple' ? `Nullable(${plain})` : plain;
}

/**
 * A tuple as a struct whose fields are named by position ("1", "2", …): DuckDB's row() names
 * every field '', so a row read back would keep only its last value; struct_extract_at reads
 * either by position.
 */
export function tupleSql(items: readonly Sql[]): Sql {
  return sql`struct_pack(${join(items.map((item, i) => sql`${raw(`"${i + 1}"`)} := ${item}`), ', ')})`;
}

export const NULL_EXPR: Expr = { sql: raw('NULL'), type: 'Null', aggregate: null, nullable: true, constant: { value: null } };
