// Actions in filters: each step is an AND of its conditions (event name, element, URL,
// properties); an action matches when any of its steps does.

import type { Expr } from '../ast.js';
import { and, call, compare, constant, field, lambda, or } from '../ast.js';
import type { ActionStep, FilterContext } from './context.js';
import { selectorExpr, tagNameExpr } from './elements.js';
import { propertyToExpr } from './properties.js';

function matching(kind: string | null | undefined, target: Expr, value: string): Expr {
  if (kind === 'regex') return compare('=~', target, constant(value));
  if (kind === 'contains') return compare('ilike', target, constant(`%${value}%`));
  return compare('==', target, constant(value));
}

function textMatching(kind: string | null | undefined, value: string): Expr {
  const test = kind === 'regex'
    ? compare('=~', field('x'), constant(value))
    : kind === 'contains'
      ? compare('ilike', field('x'), constant(`%${value}%`))
      : compare('==', field('x'), constant(value));
  return call('arrayExists', lambda(['x'], test), field('elements_chain_texts'));
}

function stepExpr(step: ActionStep, ctx: FilterContext): Expr {
  const exprs: Expr[] = [];
  if (step.event) exprs.push(compare('==', field('event'), constant(step.event)));
  if (step.event === '$autocapture') {
    if (step.selector) exprs.push(selectorExpr(step.selector));
    if (step.tag_name !== null && step.tag_name !== undefined) exprs.push(tagNameExpr(step.tag_name));
    if (step.href !== null && step.href !== undefined) exprs.push(matching(step.href_matching, field('elements_chain_href'), step.href));
    if (step.text !== null && step.text !== undefined) exprs.push(textMatching(step.text_matching, step.text));
  }
  if (step.url) {
    const url = field('properties', '$current_url');
    if (step.url_matching === 'exact') exprs.push(compare('==', url, constant(step.url)));
    else if (step.url_matching === 'regex') exprs.push(compare('=~', url, constant(step.url)));
    else exprs.push(compare('like', url, constant(`%${step.url}%`)));
  }
  if (step.properties && step.properties.length > 0) exprs.push(propertyToExpr(step.properties, ctx));
  if (exprs.length === 0) return constant(true);
  return exprs.length === 1 ? exprs[0] : and(exprs);
}

/** An action's steps as one expression (true when it has none). */
export function stepsToExpr(steps: readonly ActionStep[], ctx: FilterContext): Expr {
  if (steps.length === 0) return constant(true);
  const each = steps.map((s) => stepExpr(s, ctx));
  return each.length === 1 ? each[0] : or(each);
}
