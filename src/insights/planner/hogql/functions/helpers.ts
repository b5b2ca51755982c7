// What several groups of the catalogue build with: argument lists and calls, bounded sizes,
// constant arguments, time zones given as arguments, whole numbers, -If conditions.
import { join, raw, sql, text, type Sql } from '../../sql.js';
import { expr, fail, num, SESSION_ZONE, zoneSql, type Expr } from '../expr.js';
import type { Fx } from './catalogue.js';

export const list = (args: readonly Sql[]) => join(args, ', ');
export const call = (name: string, args: readonly Sql[]) => sql`${raw(name)}(${list(args)})`;
// Sizes a query asks a function to build (repeat, pad, range) are bounded: a 10⁹-element
// list is built before any LIMIT applies. Past the bound, DuckDB raises an input error (a 400).
export const MAX_BUILT = 1_000_000;
export const bounded = (n: Sql, what: string) =>
  sql`(CASE WHEN abs(${n}) > ${raw(String(MAX_BUILT))} THEN error(${text(`${what} is limited to ${MAX_BUILT} elements`)}) ELSE ${n} END)`;
export const constantText = (e: Expr, fx: Fx, what: string): string => {
  if (e.constant === undefined || typeof e.constant.value !== 'string') fail(`${fx.name}() needs ${what} as a constant string`, fx.node);
  return e.constant!.value as string;
};
export const constantInt = (e: Expr, fx: Fx, what: string): number => {
  const v = e.constant?.value;
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(`${fx.name}() needs ${what} as a constant integer`, fx.node);
  return v as number;
};
export const whole = (e: Expr) => sql`CAST(${num(e)} AS BIGINT)`;
// Text parts joined by a separator with ||, so that one NULL makes the whole NULL.
export const joinedBy = (items: readonly Sql[], by: Sql): Sql => ({ parts: items.flatMap((item, i) => (i === 0 ? [item] : [sql` || ${by} || `, item])) });
export const withIf = (inner: Sql, cond: Expr) => sql`${inner} FILTER (WHERE ${cond.sql})`;

// ---- time zones (calendar functions read the project's wall clock, or a value's own)

export const tzOf = (e: Expr, fx: Fx) => (e.zone === undefined ? fx.tz : zoneSql(e.zone));
// Whether the zone is one the ICU data names (DuckDB's and Intl's alike).
const knownZone = (name: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
};
// A value read on a time zone given as a function's argument (toTimeZone, toStartOfDay,
// toStartOfInterval, formatDateTime): its calendar is that zone's wall clock, its instant
// shown in it. No zone: the value as it is.
export const inZone = (x: Expr, zone: Expr | undefined, fx: Fx): Expr => {
  if (zone === undefined) return x;
  const name = constantText(zone, fx, 'the time zone');
  if (!knownZone(name)) fail(`${fx.name}(): unknown time zone '${name}'`, fx.node);
  return { ...x, zone: name };
};
export const backToInstant = (local: Sql, e: Expr, fx: Fx) => (tzOf(e, fx) === SESSION_ZONE ? sql`CAST(${local} AS TIMESTAMPTZ)` : sql`timezone(${tzOf(e, fx)}, ${local})`);
export const dateTime = (s: Sql, from: Expr[], extra: Partial<Expr> = {}) => expr(s, 'DateTime', from, extra);
