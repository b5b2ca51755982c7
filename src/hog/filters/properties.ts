// Property filters to expressions, as PostHog's property_to_expr builds them for events
// (the scope hog function filters run in): which global a property lives in, how list
// values fan out, and the element, cohort and HogQL filter types.

import type { Expr } from '../ast.js';
import { and, call, compare, constant, field, or, tuple } from '../ast.js';
import { parseExpression } from '../parser.js';
import type { FilterContext, PropertyFilter } from './context.js';
import { FilterError } from './context.js';
import { selectorExpr, tagNameExpr } from './elements.js';
import { compareOperator } from './operators.js';

// Property types PostHog's Property model accepts; any other makes the filter match everything.
const KNOWN_TYPES = new Set([
  'event', 'event_metadata', 'feature', 'person', 'cohort', 'element', 'static-cohort', 'precalculated-cohort', 'group',
  'recording', 'log_entry', 'behavioral', 'session', 'hogql', 'data_warehouse', 'data_warehouse_person_property',
  'error_tracking_issue', 'log', 'log_attribute', 'log_resource_attribute', 'span', 'span_attribute',
  'span_resource_attribute', 'revenue_analytics', 'workflow_variable', 'flag',
]);

const NEGATIVE_JOINED_BY_AND = new Set(['not_icontains', 'not_regex', 'is_not']);

const matchAll = () => constant(1);

/** Where an event-scope property lives: [...chain, key] (key '' means the chain itself). */
function location(property: PropertyFilter, key: string): { chain: string[]; key: string } {
  switch (property.type ?? 'event') {
    case 'person':
      return key === 'distinct_id' ? { chain: ['person', 'pdi'], key } : { chain: ['person', 'properties'], key };
    case 'group': return { chain: [`group_${String(property.group_type_index)}`, 'properties'], key };
    case 'session': return { chain: ['session'], key };
    case 'recording':
    case 'log_entry':
    case 'event_metadata':
      return { chain: [], key };
    case 'data_warehouse': {
      const parts = key.split('.');
      return { chain: parts.slice(0, -1), key: parts[parts.length - 1] };
    }
    case 'data_warehouse_person_property': {
      const parts = key.split('.');
      if (parts.length !== 2) throw new FilterError('not enough values to unpack (expected 2)');
      return { chain: ['person', parts[0]], key: parts[1] };
    }
    case 'log':
    case 'span':
      return { chain: [key], key: '' };
    case 'log_attribute':
    case 'span_attribute':
      return { chain: ['attributes'], key };
    case 'log_resource_attribute':
    case 'span_resource_attribute':
      return { chain: ['resource_attributes'], key };
    case 'workflow_variable': return { chain: ['variables'], key };
    default: return { chain: ['properties'], key };
  }
}

function propertyExpr(property: PropertyFilter, ctx: FilterContext): Expr {
  const type = property.type ?? 'event';
  if (type === 'revenue_analytics') {
    throw new FilterError("The 'revenue_analytics' property filter does not work in 'event' scope");
  }
  const operator = property.operator || 'exact';
  let v = property.value;
  const where = location(property, String(property.key));
  const target = where.chain.length === 1 && where.chain[0] === 'properties' && where.key === '$elements_chain'
    ? field('elements_chain')
    : field(...where.chain, ...(where.key === '' ? [] : [where.key]));

  if (Array.isArray(v) && !['between', 'not_between', 'icontains', 'not_icontains'].includes(operator)) {
    if (v.length === 0) return matchAll();
    if (v.length === 1) {
      v = v[0];
    } else {
      if (operator === 'in' || operator === 'not_in') {
        return compare(operator === 'in' ? 'in' : 'not in', target, tuple(v.map((x) => constant(x as never))));
      }
      // One comparison per value (type-coercing, so a number matches its string), joined.
      const each = v.map((x) => propertyExpr({ ...property, value: x }, ctx));
      return NEGATIVE_JOINED_BY_AND.has(operator) ? and(each) : or(each);
    }
  }
  return compareOperator(target, v, operator, property, ctx);
}

function elementExpr(property: PropertyFilter, ctx: FilterContext): Expr {
  const operator = property.operator || 'exact';
  let v = property.value;
  if (Array.isArray(v)) {
    if (v.length === 1) {
      v = v[0];
    } else {
      const each = v.map((x) => elementExpr({ ...property, value: x }, ctx));
      return NEGATIVE_JOINED_BY_AND.has(operator) ? and(each) : or(each);
    }
  }
  const key = String(property.key);
  if (key === 'selector' || key === 'tag_name') {
    if (operator !== 'exact' && operator !== 'is_not') {
      throw new FilterError(`property_to_expr for element ${key} only supports exact and is_not operators, not ${operator}`);
    }
    const expr = key === 'selector' ? selectorExpr(String(v)) : tagNameExpr(String(v));
    return operator === 'is_not' ? call('not', expr) : expr;
  }
  if (key === 'href') return compareOperator(field('elements_chain_href'), v, operator, property, ctx);
  if (key === 'text') {
    const test = compareOperator(field('text'), v, operator, property, ctx);
    return call('arrayExists', { node: 'Lambda', args: ['text'], expr: test }, field('elements_chain_texts'));
  }
  throw new FilterError(`property_to_expr for type element not implemented for key ${key}`);
}

/** A property filter, a list of them (all must hold), or anything else PostHog reads as one. */
export function propertyToExpr(property: unknown, ctx: FilterContext): Expr {
  if (Array.isArray(property)) {
    const exprs = property.map((p) => propertyToExpr(p, ctx));
    if (exprs.length === 0) return matchAll();
    return exprs.length === 1 ? exprs[0] : and(exprs);
  }
  if (typeof property !== 'object' || property === null) {
    throw new FilterError(`property_to_expr with property of type ${typeof property} not implemented`);
  }
  const p = property as PropertyFilter;
  // PostHog's Property model needs a key and a known type; without them the filter is no filter.
  if (!('key' in p) || !KNOWN_TYPES.has(p.type ?? 'event')) return matchAll();
  const type = p.type ?? 'event';
  if (type === 'group' && (p.group_type_index === null || p.group_type_index === undefined)) return matchAll();
  if (type === 'hogql') return parseExpression(String(p.key));
  if (type === 'element') return elementExpr(p, ctx);
  if (type === 'cohort' || type === 'static-cohort' || type === 'precalculated-cohort') {
    // Compiles to a cohort comparison, which real-time filters refuse.
    const id = Number(p.value);
    if (typeof p.value !== 'string' && typeof p.value !== 'number') throw new FilterError('Cohort property value must be a cohort ID');
    if (ctx.cohort && ctx.cohort(id) === undefined) throw new FilterError('Cohort matching query does not exist.');
    const negated = p.negation === true || p.operator === 'not_in';
    return compare(negated ? 'not in cohort' : 'in cohort', field('person_id'), constant(Number.isInteger(id) ? id : String(p.value)));
  }
  if (type === 'flag') return matchAll();
  return propertyExpr(p, ctx);
}

