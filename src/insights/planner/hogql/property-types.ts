// PostHog's property types in HogQL (its PropertySwapper): a single-key property of an event,
// a person (the event's person too) or a group of the event is read as its definition's type
// says (src/definitions/): Numeric as toFloat, DateTime as toDateTime, Boolean as "true" →
// true, "false" → false, anything else NULL; String, or no definition, as the text it is.
// Pure: the types come with the query (CompileContext.propertyTypes).
import type { PropertyType, PropertyTypes } from '../../../definitions/index.js';
import { sql, type Sql } from '../sql.js';
import { expr, instant, type Expr } from './expr.js';

// Whose properties a read is of.
export type PropertyOwner = { kind: 'event' } | { kind: 'person' } | { kind: 'group'; index: number };

export const EVENT_OWNER: PropertyOwner = { kind: 'event' };
export const PERSON_OWNER: PropertyOwner = { kind: 'person' };

export function propertyTypeOf(types: PropertyTypes | undefined, owner: PropertyOwner | null, keys: readonly unknown[]): PropertyType | undefined {
  if (types === undefined || owner === null || keys.length !== 1 || typeof keys[0] !== 'string') return undefined;
  const key = keys[0];
  const byName = owner.kind === 'event' ? types.event : owner.kind === 'person' ? types.person : types.groups?.[owner.index];
  return byName !== undefined && Object.hasOwn(byName, key) ? byName[key] : undefined;
}

// A 9 or 10 digit text is a unix time to ClickHouse's best-effort parser (toDateTime's).
const UNIX_TIME = '[0-9]{9,10}';

/** The text read `e` as the type says (keeping the text, for what reads it as text again). */
export function typedProperty(e: Expr, type: PropertyType | undefined, tz: Sql): Expr {
  switch (type) {
    case 'Numeric':
      return expr(sql`TRY_CAST(${e.sql} AS DOUBLE)`, 'Float', [e], { nullable: true, text: e.sql });
    case 'Boolean':
      return expr(sql`(CASE ${e.sql} WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END)`, 'Bool', [e], { nullable: true, text: e.sql });
    case 'DateTime':
      return expr(sql`(CASE WHEN regexp_full_match(${e.sql}, ${UNIX_TIME}) THEN to_timestamp(CAST(${e.sql} AS BIGINT)) ELSE ${instant(e, tz)} END)`, 'DateTime', [e], { nullable: true });
    default:
      return e;
  }
}
