// Hog function filters ({events, actions, properties, filter_test_accounts}) to bytecode,
// as PostHog compiles them: AND(test account filters, global properties, OR(each event or
// action with its own properties)), one-member ANDs and ORs unwrapped, nothing → true.

import type { Expr, Field, Node } from '../ast.js';
import { COHORT_FILTER_TYPES } from '../../matching/index.js';
import { and, compare, constant, field, not, or } from '../ast.js';
import { compileTree } from '../compiler/compile.js';
import { HogCompileError } from '../errors.js';
import type { Bytecode } from '../opcodes.js';
import { walk } from '../walk.js';
import { stepsToExpr } from './actions.js';
import type { FilterContext, PropertyFilter } from './context.js';
import { FilterError } from './context.js';
import { propertyToExpr } from './properties.js';

export interface EntityFilter {
  id?: string | number | null;
  type?: string;
  name?: string;
  order?: number;
  properties?: PropertyFilter[] | null;
  [other: string]: unknown;
}

export interface HogFunctionFilters {
  source?: string;
  events?: EntityFilter[] | null;
  actions?: EntityFilter[] | null;
  properties?: PropertyFilter[] | null;
  filter_test_accounts?: boolean;
  [other: string]: unknown;
}

export type FiltersResult = { bytecode: Bytecode } | { bytecode: null; bytecode_error: string };

// Internal events whose properties hold nested objects: their dotted keys are paths.
const NESTED_PROPERTY_EVENTS = new Set(['$activity_log_entry_created']);

class CohortInlineError extends Error {
  constructor(readonly reasons: string[]) {
    super("Can't use cohorts in real-time filters");
  }
}

const combine = (exprs: Expr[]): Expr => (exprs.length === 0 ? constant(true) : exprs.length === 1 ? exprs[0] : and(exprs));

/** `properties.detail.name` for the key "detail.name" (PostHog's nested-key resolution). */
function nestedKeys(expr: Expr): Expr {
  const copy = structuredClone(expr);
  walk(copy, (node) => {
    if (node.node !== 'Field') return;
    const f = node as Field;
    if (f.chain[0] !== 'properties') return;
    f.chain = [f.chain[0], ...f.chain.slice(1).flatMap((e) => (typeof e === 'string' && e.includes('.') ? e.split('.') : [e]))];
  });
  return copy;
}

function nonPersonLeaves(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) nonPersonLeaves(item, found);
  } else if (typeof node === 'object' && node !== null) {
    const n = node as { type?: string; values?: unknown };
    if (n.type === 'AND' || n.type === 'OR') {
      if (Array.isArray(n.values)) nonPersonLeaves(n.values, found);
    } else if (n.type !== 'person') {
      found.add(n.type || '<unknown>');
    }
  }
  return found;
}

/** A cohort's property tree as one expression (AND/OR groups kept even with one member). */
function cohortTreeExpr(node: unknown, ctx: FilterContext): Expr {
  if (Array.isArray(node)) return combine(node.map((child) => cohortTreeExpr(child, ctx)));
  if (typeof node !== 'object' || node === null) return constant(true);
  const n = node as { type?: string; values?: unknown };
  if ((n.type === 'AND' || n.type === 'OR') && Array.isArray(n.values)) {
    const exprs = n.values.map((child) => cohortTreeExpr(child, ctx));
    return n.type === 'AND' ? and(exprs) : or(exprs);
  }
  return propertyToExpr(node, ctx);
}

function inlineCohort(prop: PropertyFilter, ctx: FilterContext): Expr | string {
  const id = prop.value;
  if (id === null || id === undefined) return 'cohort filter has no value';
  const cohort = ctx.cohort?.(Number(id));
  if (!cohort) return `cohort id=${String(id)} not found`;
  const named = `cohort '${cohort.name}' (id=${String(id)})`;
  if (cohort.is_static) {
    return `${named} is a static cohort — static cohort membership can't be evaluated in real-time filters`;
  }
  const properties = cohort.filters?.properties;
  const empty = !properties || (Array.isArray(properties) && properties.length === 0) ||
    (typeof properties === 'object' && Object.keys(properties).length === 0);
  if (empty) return `${named} has no properties defined`;
  const others = [...nonPersonLeaves(properties)].sort();
  if (others.length > 0) {
    return `${named} contains ${others.join(', ')} filters — only cohorts with exclusively person property filters can be used in real-time filters`;
  }
  const expr = cohortTreeExpr(properties, ctx);
  if (expr.node === 'Constant' && expr.value === true) return `${named} has no person property filters`;
  return prop.negation || prop.operator === 'not_in' ? not(expr) : expr;
}

function testAccountExprs(filters: HogFunctionFilters, ctx: FilterContext): Expr[] {
  if (!filters.filter_test_accounts) return [];
  const exprs: Expr[] = [];
  const failures: string[] = [];
  for (const prop of ctx.testAccountFilters ?? []) {
    if (COHORT_FILTER_TYPES.has(String(prop.type))) {
      const inlined = inlineCohort(prop, ctx);
      if (typeof inlined === 'string') failures.push(inlined);
      else exprs.push(inlined);
    } else {
      exprs.push(propertyToExpr(prop, ctx));
    }
  }
  if (failures.length > 0) throw new CohortInlineError(failures);
  return exprs;
}

function actionExpr(entity: EntityFilter, ctx: FilterContext): Expr {
  if (entity.id === undefined) return compare('==', constant(1), constant(2)); // no events match
  const id = Number(entity.id);
  if (!Number.isInteger(id)) throw new FilterError(`invalid literal for int() with base 10: '${String(entity.id)}'`);
  const action = ctx.action?.(id);
  if (!action) throw new FilterError('Action matching query does not exist.');
  return stepsToExpr(action.steps, ctx);
}

function entityExpr(entity: EntityFilter, ctx: FilterContext): Expr {
  const exprs: Expr[] = [];
  if (entity.type === 'events') {
    exprs.push(entity.id === null || entity.id === undefined ? constant(true) : compare('==', field('event'), constant(entity.id)));
  } else if (entity.type === 'actions') {
    exprs.push(actionExpr(entity, ctx));
  }
  if (entity.properties && entity.properties.length > 0) exprs.push(propertyToExpr(entity.properties, ctx));
  const expr = combine(exprs);
  return NESTED_PROPERTY_EVENTS.has(String(entity.id)) ? nestedKeys(expr) : expr;
}

/** The expression hog function filters stand for (before compiling). */
export function filtersToExpr(filters: HogFunctionFilters, ctx: FilterContext): Expr {
  const testAccounts = testAccountExprs(filters, ctx);
  let global = filters.properties && filters.properties.length > 0 ? filters.properties.map((p) => propertyToExpr(p, ctx)) : [];
  // Person updates and warehouse rows are not events: their filters have no events or actions.
  const eventSource = filters.source === undefined || filters.source === 'events';
  const entities = eventSource ? [...(filters.events ?? []), ...(filters.actions ?? [])] : [];
  if (entities.length === 0) return combine([...testAccounts, ...global]);
  const each = entities.map((e) => entityExpr(e, ctx));
  if (entities.every((e) => NESTED_PROPERTY_EVENTS.has(String(e.id)))) global = global.map(nestedKeys);
  return combine([...testAccounts, ...global, each.length > 1 ? or(each) : each[0]]);
}

function settingsUrl(ctx: FilterContext): string {
  return `${(ctx.siteUrl ?? '').replace(/\/+$/, '')}/project/${String(ctx.projectId ?? '')}/settings/project#internal-user-filtering`;
}

function hasSelect(expr: Node): boolean {
  let found = false;
  walk(expr, (node) => {
    if (node.node === 'SelectQuery' || node.node === 'SelectSetQuery') found = true;
  });
  return found;
}

/** Compiles hog function filters; a filter PostHog cannot compile gives bytecode_error, never a throw. */
export function compileFilters(filters: HogFunctionFilters | null | undefined, ctx: FilterContext): FiltersResult {
  try {
    const expr = filtersToExpr(filters ?? {}, ctx);
    if (hasSelect(expr)) throw new FilterError('Select queries are not allowed in filters');
    const compiled = compileTree(expr, '');
    const errors = compiled.warnings.filter((w) => w.kind === 'error').map((w) => w.message);
    if (errors.length > 0) throw new FilterError(`Filter compilation errors: ${errors.join('; ')}`);
    return { bytecode: compiled.bytecode };
  } catch (err) {
    if (err instanceof CohortInlineError) {
      return {
        bytecode: null,
        bytecode_error: "Your internal/test user filters include cohorts that can't be used in real-time filters: " +
          `${err.reasons.join('; ')}. Either switch to a cohort that only uses person properties, ` +
          `or replace the cohort with inline person property filters. Update your filters at: ${settingsUrl(ctx)}`,
      };
    }
    if (!(err instanceof FilterError) && !(err instanceof HogCompileError)) throw err;
    let message = err.message;
    if (message.includes("Can't use cohorts in real-time filters")) {
      message = "Cohort membership can't be evaluated in real-time filters. Replace cohorts with equivalent inline " +
        `person property filters. Update your filters at: ${settingsUrl(ctx)}`;
    }
    return { bytecode: null, bytecode_error: message };
  }
}
