// What every planner shares: the context a query is planned in, the plan it returns, and
// the events scan (project, time range, event name, property filters) each query kind
// starts from.
import type { EventsNode } from '../schemas.js';
import type { TimeContext } from './dates.js';
import { hogqlCondition, hogqlFiltersUsePersons, type HogQLExpressions, type HogQLRowContext } from './hogql-row.js';
import { propertiesSql, usesPersons, type HogQLConditionOf, type Properties, type ValueSets } from './properties.js';
import { raw, sql, timestamp, type Sql } from './sql.js';

export interface PlanContext extends TimeContext {
  projectId: number;
  /** Value-set filters resolved by the runner (planner/properties.ts). */
  valueSets: ValueSets;
  /** The query's HogQL texts (math, breakdowns, filters), parsed by the runner (planner/hogql-row.ts). */
  hogql?: HogQLExpressions;
}

/** How the context's filters of type "hogql" become conditions. */
export function hogqlFilters(ctx: HogQLRowContext): HogQLConditionOf {
  return (source, attr) => hogqlCondition(ctx, source, attr);
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

/** An events node's own conditions: its event name (none: all events) and its properties (fixed ones too). */
export function nodeWhere(node: Pick<EventsNode, 'event' | 'properties' | 'fixedProperties'>, ctx: PlanContext, attr: string): Sql[] {
  const out: Sql[] = [];
  if (node.event !== null && node.event !== undefined) out.push(sql`e.event = ${node.event}`);
  if (node.properties) out.push(propertiesSql(node.properties as Properties, ctx.valueSets, `${attr}.properties`, hogqlFilters(ctx)));
  if (node.fixedProperties) out.push(propertiesSql(node.fixedProperties as Properties, ctx.valueSets, `${attr}.fixedProperties`, hogqlFilters(ctx)));
  return out;
}

export function queryPropertiesWhere(properties: unknown, ctx: PlanContext, attr = 'properties'): Sql[] {
  return properties ? [propertiesSql(properties as Properties, ctx.valueSets, attr, hogqlFilters(ctx))] : [];
}

/** Whether any of the property lists reads person properties (so the scan joins persons). */
export function needsPersons(ctx: PlanContext, ...lists: unknown[]): boolean {
  const given = lists.filter((p) => p !== null && p !== undefined);
  return given.some((p) => usesPersons(p as Properties)) || hogqlFiltersUsePersons(ctx, given);
}

/** A node's label: its event, or "All events". */
export function nodeName(node: Pick<EventsNode, 'event'>): string {
  return node.event ?? 'All events';
}

export const toNumber = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'bigint' ? Number(v) : v === null || v === undefined ? 0 : Number(v));
