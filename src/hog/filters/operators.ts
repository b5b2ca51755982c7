// One property comparison per operator, as PostHog's filter compiler builds it (the
// expression the VM then evaluates on the filter globals).

import type { ConstantValue, Expr } from '../ast.js';
import { and, array, call, compare, constant, or } from '../ast.js';
import type { FilterContext, PropertyFilter } from './context.js';
import { FilterError } from './context.js';
import { resolveDateValue } from './dates.js';
import { caretBounds, tildeBounds, wildcardBounds } from './semver.js';

const pyStr = (v: unknown): string =>
  v === true ? 'True' : v === false ? 'False' : v === null || v === undefined ? 'None' : String(v);

const value = (v: unknown): Expr => constant(v as ConstantValue);

/** "true"/"false" (and booleans) compile to booleans only for properties defined as Boolean. */
function boolValue(v: unknown, property: PropertyFilter, ctx: FilterContext): unknown {
  const text = v === true ? 'true' : v === false ? 'false' : v;
  if (text !== 'true' && text !== 'false') return text;
  const key = String(property.key ?? '');
  const isBoolean = ctx.isBooleanProperty?.(property.type ?? 'event', key, property.group_type_index ?? null) ?? false;
  return isBoolean ? text === 'true' : text;
}

const multiSearch = (expr: Expr, values: unknown[]) =>
  call('multiSearchAnyCaseInsensitive', call('toString', expr), array(values.map((v) => constant(pyStr(v)))));

function toDateTime(expr: Expr): Expr {
  if (expr.node === 'Constant' && typeof expr.value === 'string') return call('toDateTime', expr);
  return call('toDateTime', call('toString', expr));
}

function dateCompare(op: string, expr: Expr, v: unknown, ctx: FilterContext): Expr {
  if (typeof v !== 'string') throw new FilterError('Date operators require a string value');
  return compare(op, toDateTime(expr), toDateTime(value(resolveDateValue(v, ctx.now, ctx.timeZone ?? 'UTC'))));
}

function betweenValues(v: unknown, operator: string): [unknown, unknown] {
  if (!Array.isArray(v) || v.length !== 2) throw new FilterError(`${operator} operator requires a two-element array [min, max]`);
  // Python's float(): numbers, booleans and numeric text.
  const [low, high] = v.map((x) =>
    typeof x === 'number' || typeof x === 'boolean' ? Number(x) : typeof x === 'string' && x.trim() !== '' ? Number(x) : NaN);
  if (Number.isNaN(low) || Number.isNaN(high)) throw new FilterError(`${operator} operator requires numeric values`);
  if (low > high) throw new FilterError(`${operator} operator requires min value to be less than or equal to max value`);
  return [v[0], v[1]];
}

function semverRange(expr: Expr, v: unknown, name: string, bounds: (s: string) => [string, string]): Expr {
  if (typeof v !== 'string') throw new FilterError(`${name} operator requires a semver string value`);
  let range: [string, string];
  try {
    range = bounds(v);
  } catch {
    throw new FilterError(`${name} operator requires a valid semver string (e.g., '1.2.3')`);
  }
  return and([
    compare('>=', call('sortableSemver', expr), call('sortableSemver', constant(range[0]))),
    compare('<', call('sortableSemver', expr), call('sortableSemver', constant(range[1]))),
  ]);
}

const SEMVER_COMPARE: Readonly<Record<string, string>> = {
  semver_eq: '==', semver_neq: '!=', semver_gt: '>', semver_gte: '>=', semver_lt: '<', semver_lte: '<=',
};

/** The comparison of `expr` (a property's value) with `v` under `operator`. */
export function compareOperator(
  expr: Expr, v: unknown, operator: string, property: PropertyFilter, ctx: FilterContext,
): Expr {
  switch (operator) {
    case 'is_set': return compare('!=', expr, constant(null));
    case 'is_not_set': return compare('==', expr, constant(null));
    case 'icontains':
    case 'not_icontains': {
      if (Array.isArray(v) && v.length > 1) {
        return compare(operator === 'icontains' ? '>' : '==', multiSearch(expr, v), constant(0));
      }
      const single = Array.isArray(v) && v.length === 1 ? v[0] : v;
      return compare(operator === 'icontains' ? 'ilike' : 'not ilike', call('toString', expr), constant(`%${pyStr(single)}%`));
    }
    case 'icontains_multi':
    case 'not_icontains_multi':
      return compare(operator === 'icontains_multi' ? '>' : '==', multiSearch(expr, Array.isArray(v) ? v : [v]), constant(0));
    case 'regex':
      return call('ifNull', call('match', call('toString', expr), value(v)), constant(0));
    case 'not_regex':
      return call('ifNull', call('not', call('match', call('toString', expr), value(v))), constant(1));
    case 'exact': return compare('==', expr, value(boolValue(v, property, ctx)));
    case 'is_not': return compare('!=', expr, value(boolValue(v, property, ctx)));
    case 'is_date_exact': return dateCompare('==', expr, v, ctx);
    case 'is_date_before': return dateCompare('<', expr, v, ctx);
    case 'is_date_after': return dateCompare('>', expr, v, ctx);
    case 'lt': return compare('<', expr, value(v));
    case 'gt': return compare('>', expr, value(v));
    case 'lte':
    case 'max':
      return compare('<=', expr, value(v));
    case 'gte':
    case 'min':
      return compare('>=', expr, value(v));
    case 'between': {
      const [low, high] = betweenValues(v, operator);
      return and([compare('>=', expr, value(low)), compare('<=', expr, value(high))]);
    }
    case 'not_between': {
      const [low, high] = betweenValues(v, operator);
      return or([compare('<', expr, value(low)), compare('>', expr, value(high))]);
    }
    case 'in':
    case 'not_in':
      if (!Array.isArray(v)) throw new FilterError('IN and NOT IN operators require a list of values');
      return compare(operator === 'in' ? 'in' : 'not in', expr, array(v.map(value)));
    case 'semver_tilde': return semverRange(expr, v, 'Tilde', tildeBounds);
    case 'semver_caret': return semverRange(expr, v, 'Caret', caretBounds);
    case 'semver_wildcard': return semverRange(expr, v, 'Wildcard', wildcardBounds);
    default:
      if (Object.hasOwn(SEMVER_COMPARE, operator)) {
        return compare(SEMVER_COMPARE[operator], call('sortableSemver', expr), call('sortableSemver', value(v)));
      }
      throw new FilterError(`PropertyOperator ${operator} not implemented`);
  }
}
