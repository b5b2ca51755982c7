// What every planner shares: the context a query is planned in, the plan it returns, and
// the events scan (project, time range, event name, property filters) each query kind
// starts from.
import type { ActionsNode, SeriesNode } from '../schemas.js';
import { actionPropertyLists, actionSql, actionUsesPersons, type ResolvedAction } from './actions.js';
import type { TimeContext } from './dates.js';
import { QueryError } from './errors.js';
import { hogqlCondition, hogqlFiltersUsePersons, type HogQLExpressions, type HogQLRowContext } from './hogql-row.js';
import { propertiesSql, propertyText, usesPersons, type HogQLConditionOf, type Properties, type PropertyContext, type ResolvedCohort, type ValueSets } from './properties.js';
import { raw, sql, timestamp, type Sql } from './sql.js';
import type { PropertyTypes } from '../../definitions/index.js';

export interface PlanContext extends TimeContext {
  projectId: number;
  /** Value-set filters resolved by the runner (planner/properties.ts). */
  valueSets: ValueSets;
  /** The actions the query's series name, by id, as the API resolved them. */
  actions: ReadonlyMap<number, ResolvedAction>;
  /** The cohorts its property filters name (nested ones too), by id, as the API resolved them. */
  cohorts: ReadonlyMap<number, ResolvedCohort>;
  /** The query's HogQL texts (math, breakdowns, filters), parsed by the runner (planner/hogql-row.ts). */
  hogql?: HogQLExpressions;
  /** The types HogQL reads the project's properties as, by their definitions (hogql/property-types.ts). */
  propertyTypes?: PropertyTypes;
}

/** How the context's filters of type "hogql" become conditions. */
export function hogqlFilters(ctx: HogQLRowContext): HogQLConditionOf {
  return (source, attr) => hogqlCondition(ctx, source, attr);
}

/** What property filters are planned with: the plan's value sets, cohorts and HogQL texts. */
export function propertyContext(ctx: PlanContext): PropertyContext {
  const props: PropertyContext = { projectId: ctx.projectId, valueSets: ctx.valueSets, cohorts: ctx.cohorts, hogql: hogqlFilters(ctx), nowMs: ctx.nowMs };
  props.action = (id, attr) => {
    const action = queryAction(id, ctx, attr);
    // Behavioural conditions scan events alone: steps reading the person are not computed there.
    if (actionUsesPersons(action)) throw new QueryError(`Action ${id} reads person properties or cohorts: not computed in a behavioral cohort`, attr);
    return actionSql(action, props, attr);
  };
  return props;
}

/** A row as the runner hands it to a plan: column name → plain JS value. */
export type Row = Record<string, unknown>;

/** SQL statements to run (in order) and the function that shapes their rows into the result. */
export interface Plan<R = unknown> {
  statements: Sql[];
  shape(results: Row[][]): R;
  /** The query as HogQL (PostHog's `hogql` response field), where the planner writes it. */
  hogql?: string;
}

/** `events e`, joined to the current person's row when person properties are needed. */
export function eventsFrom(persons: boolean): Sql {
  return persons ? raw('events e LEFT JOIN persons p ON p.project = e.project AND p.id = e.person_id') : raw('events e');
}

/** Project and [fromUs, toUs) conditions. */
export function scopeWhere(ctx: PlanContext, fromUs: number, toUs: number): Sql[] {
  return [sql`e.project = ${ctx.projectId}`, sql`e.timestamp >= ${timestamp(fromUs)}`, sql`e.timestamp < ${timestamp(toUs)}`];
}

/** An action the query names, by id (the API resolved every one); `attr` names the field. */
export function queryAction(id: number | string, ctx: Pick<PlanContext, 'actions'>, attr: string): ResolvedAction {
  const action = ctx.actions.get(Number(id));
  if (action === undefined) throw new QueryError(`Action ${String(id)} does not exist`, attr);
  return action;
}

/** The action an actions node names. */
export function nodeAction(node: ActionsNode, ctx: Pick<PlanContext, 'actions'>, attr = 'series'): ResolvedAction {
  return queryAction(node.id, ctx, `${attr}.id`);
}

/**
 * A series node's own conditions: its event name (none: all events) or its action's steps,
 * and its properties (fixed ones too).
 */
export function nodeWhere(node: SeriesNode, ctx: PlanContext, attr: string): Sql[] {
  const event = nodeEventWhere(node, ctx, attr);
  return [...(event ? [event] : []), ...nodePropertiesWhere(node, ctx, attr)];
}

/** A series node's event name or action condition; null for all events. */
export function nodeEventWhere(node: SeriesNode, ctx: PlanContext, attr: string): Sql | null {
  if (node.kind === 'ActionsNode') return actionSql(nodeAction(node, ctx, attr), propertyContext(ctx), `${attr}.id`);
  return node.event !== null && node.event !== undefined ? sql`e.event = ${node.event}` : null;
}

/** A series node's own property filters (fixed ones too). */
export function nodePropertiesWhere(node: SeriesNode, ctx: PlanContext, attr: string): Sql[] {
  const out: Sql[] = [];
  const props = propertyContext(ctx);
  if (node.properties) out.push(propertiesSql(node.properties as Properties, props, `${attr}.properties`));
  if (node.fixedProperties) out.push(propertiesSql(node.fixedProperties as Properties, props, `${attr}.fixedProperties`));
  return out;
}

export function queryPropertiesWhere(properties: unknown, ctx: PlanContext, attr = 'properties'): Sql[] {
  return properties ? [propertiesSql(properties as Properties, propertyContext(ctx), attr)] : [];
}

/** Whether any of the property lists reads person properties (so the scan joins persons). */
export function needsPersons(ctx: PlanContext, ...lists: unknown[]): boolean {
  const given = lists.filter((p) => p !== null && p !== undefined);
  return given.some((p) => usesPersons(p as Properties)) || hogqlFiltersUsePersons(ctx, given);
}

/** Whether a node's conditions read person properties (its action's steps included). */
export function nodeUsesPersons(node: SeriesNode, ctx: PlanContext): boolean {
  const steps = node.kind === 'ActionsNode' ? actionPropertyLists(nodeAction(node, ctx)) : [];
  return needsPersons(ctx, node.properties, node.fixedProperties, ...steps);
}

/**
 * Funnels, stickiness and lifecycle count persons: a series' math other than total or dau
 * (or one the kind lists in `also`) would be ignored there, so it is refused naming the series.
 */
export function refuseSeriesMath(series: readonly SeriesNode[], kind: string, also: readonly string[] = []): void {
  series.forEach((node, i) => {
    const math = node.math;
    if (math !== null && math !== undefined && math !== 'total' && math !== 'dau' && !also.includes(math)) {
      throw new QueryError(`math "${math}" is not supported by hedgerow in ${kind}: its series count persons`, `series.${i}.math`);
    }
  });
}

/**
 * Who a query counts where it counts persons: the event's person, or with
 * aggregation_group_type_index its group of that type (the key; events without one left out).
 */
export interface Actor {
  id: Sql;
  where: Sql[];
}

export function actorOf(query: { aggregation_group_type_index?: number | null }): Actor {
  const index = query.aggregation_group_type_index;
  if (index === null || index === undefined) return { id: raw('e.person_id'), where: [] };
  const key = propertyText('event', `$group_${index}`);
  return { id: key, where: [sql`coalesce(${key}, '') <> ''`] };
}

/** A node's label: its event, "All events", or its action's name. */
export function nodeName(node: SeriesNode, ctx: Pick<PlanContext, 'actions'>): string {
  if (node.kind === 'ActionsNode') return nodeAction(node, ctx).name ?? node.name ?? `Action ${String(node.id)}`;
  return node.event ?? 'All events';
}

/** What a result names its series by: the event (null: all events), or the action's id. */
export function nodeEntity(node: SeriesNode): { id: string | number | null; type: 'events' | 'actions' } {
  return node.kind === 'ActionsNode' ? { id: Number(node.id), type: 'actions' } : { id: node.event ?? null, type: 'events' };
}

export const toNumber = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v === null || v === undefined ? 0 : Number(v));
