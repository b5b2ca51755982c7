// Cohorts: dynamic ones are AND/OR trees of person-property filters and other cohorts,
// evaluated against the person's properties; static ones are a membership list the caller
// supplies. A cohort that is missing or part of a dependency cycle makes every flag that
// targets it fail, as in PostHog. Problems are found once, at compile time.

import { compileOperator, type ValueTest } from '../matching/index.js';
import { propertyLookup } from './properties.js';
import type { PropertyLookup } from './properties.js';
import type { CohortDefinition, CohortMembership, Properties, PropertyFilterDefinition, PropertyGroupDefinition, ReasonCode } from './types.js';

/** Thrown (one frozen instance per code) when a flag cannot be evaluated. */
export interface EvaluationFailure {
  readonly code: ReasonCode;
}

const failures = new Map<ReasonCode, EvaluationFailure>();
export function failure(code: ReasonCode): EvaluationFailure {
  let f = failures.get(code);
  if (f === undefined) failures.set(code, (f = Object.freeze({ code })));
  return f;
}

const enum Kind { And, Or, Property, Cohort, Never }

type Node =
  | { readonly kind: Kind.And | Kind.Or; readonly children: readonly Node[] }
  | { readonly kind: Kind.Property; readonly lookup: PropertyLookup; readonly test: ValueTest; readonly negation: boolean }
  | { readonly kind: Kind.Cohort; readonly target: Cohort | undefined; readonly membership: Membership; readonly negation: boolean }
  | { readonly kind: Kind.Never };

/** How a cohort filter reads membership: `in` (the default), `not_in`, or nothing else. */
export const enum Membership { In, NotIn, Invalid }

export interface Cohort {
  readonly id: number;
  /** Slot in the per-evaluation memo. */
  readonly slot: number;
  readonly isStatic: boolean;
  tree: Node;
  /** Set when this cohort or one it depends on is missing, or they form a cycle. */
  failure: EvaluationFailure | undefined;
}

export interface CohortTable {
  readonly byId: ReadonlyMap<number, Cohort>;
  readonly size: number;
}

/** Cohort ids are integers, written as numbers or numeric strings. */
export function cohortId(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

export function membershipOf(operator: string | null | undefined): Membership {
  if (operator === undefined || operator === null || operator === 'in') return Membership.In;
  return operator === 'not_in' ? Membership.NotIn : Membership.Invalid;
}

function isGroup(node: PropertyGroupDefinition | PropertyFilterDefinition): node is PropertyGroupDefinition {
  return Array.isArray((node as PropertyGroupDefinition).values);
}

function compileNode(
  node: PropertyGroupDefinition | PropertyFilterDefinition,
  byId: ReadonlyMap<number, Cohort>,
  deps: Set<number | undefined>,
): Node {
  if (isGroup(node)) {
    const kind = node.type === 'OR' ? Kind.Or : node.type === 'AND' || node.type === 'property' ? Kind.And : undefined;
    if (kind === undefined) return { kind: Kind.Never };
    return { kind, children: node.values.map((child) => compileNode(child, byId, deps)) };
  }
  const negation = node.negation === true;
  if (node.type === 'cohort') {
    const id = cohortId(node.value);
    deps.add(id);
    return { kind: Kind.Cohort, target: id === undefined ? undefined : byId.get(id), membership: membershipOf(node.operator), negation };
  }
  return { kind: Kind.Property, lookup: propertyLookup(node.key), test: compileOperator(node.operator, node.value), negation };
}

function asCohortDefinition(def: CohortDefinition | PropertyGroupDefinition): CohortDefinition {
  return isGroup(def as PropertyGroupDefinition) ? { properties: def as PropertyGroupDefinition } : (def as CohortDefinition);
}

export function compileCohorts(defs: Readonly<Record<string, CohortDefinition | PropertyGroupDefinition>>): CohortTable {
  const byId = new Map<number, Cohort>();
  const pending: [Cohort, CohortDefinition][] = [];
  for (const [key, raw] of Object.entries(defs)) {
    const id = cohortId(key);
    if (id === undefined || raw === null || typeof raw !== 'object') continue;
    const def = asCohortDefinition(raw);
    const cohort: Cohort = { id, slot: byId.size, isStatic: def.is_static === true, tree: { kind: Kind.Never }, failure: undefined };
    byId.set(id, cohort);
    pending.push([cohort, def]);
  }

  const dependencies = new Map<Cohort, Set<number | undefined>>();
  for (const [cohort, def] of pending) {
    const deps = new Set<number | undefined>();
    if (!cohort.isStatic && def.properties) cohort.tree = compileNode(def.properties, byId, deps);
    dependencies.set(cohort, deps);
  }

  // Depth-first: a missing cohort anywhere below, or a cycle, fails everything above it.
  const state = new Map<Cohort, 'visiting' | 'done'>();
  const visit = (cohort: Cohort): EvaluationFailure | undefined => {
    const seen = state.get(cohort);
    if (seen === 'visiting') return failure('dependency_cycle_cohort');
    if (seen === 'done') return cohort.failure;
    state.set(cohort, 'visiting');
    let found: EvaluationFailure | undefined;
    for (const id of dependencies.get(cohort) ?? []) {
      const dep = id === undefined ? undefined : byId.get(id);
      const f = dep === undefined ? failure('dependency_not_found_cohort') : visit(dep);
      if (f !== undefined && found === undefined) found = f;
    }
    cohort.failure = found;
    state.set(cohort, 'done');
    return found;
  };
  for (const cohort of byId.values()) visit(cohort);
  return { byId, size: byId.size };
}

/** Per-evaluation scratch: 0 not yet known, 1 not a member, 2 member. */
export type CohortMemo = Uint8Array;

export function isMember(
  cohort: Cohort,
  person: Properties,
  staticCohorts: CohortMembership | null | undefined,
  memo: CohortMemo,
  now: number,
): boolean {
  if (cohort.isStatic) return staticCohorts?.has(cohort.id) ?? false;
  const known = memo[cohort.slot];
  if (known !== 0) return known === 2;
  const member = evaluateNode(cohort.tree, person, staticCohorts, memo, now, false);
  memo[cohort.slot] = member ? 2 : 1;
  return member;
}

function membershipMatches(membership: Membership, member: boolean): boolean {
  if (membership === Membership.In) return member;
  return membership === Membership.NotIn ? !member : false;
}

function evaluateNode(
  node: Node,
  person: Properties,
  staticCohorts: CohortMembership | null | undefined,
  memo: CohortMemo,
  now: number,
  insideOr: boolean,
): boolean {
  switch (node.kind) {
    case Kind.And:
      for (const child of node.children) if (!evaluateNode(child, person, staticCohorts, memo, now, false)) return false;
      return true;
    case Kind.Or:
      for (const child of node.children) if (evaluateNode(child, person, staticCohorts, memo, now, true)) return true;
      return false;
    case Kind.Property:
      return node.test(node.lookup(person), now) !== node.negation;
    case Kind.Cohort: {
      const member = node.target !== undefined && isMember(node.target, person, staticCohorts, memo, now);
      const matched = membershipMatches(node.membership, member);
      // PostHog ignores a nested cohort's negation inside an OR group.
      return insideOr ? matched : matched !== node.negation;
    }
    case Kind.Never:
      return false;
  }
}

/** A flag condition's cohort filter: `in` / `not_in` membership; negation is not read here. */
export function cohortFilterMatches(
  target: Cohort | undefined,
  membership: Membership,
  person: Properties,
  staticCohorts: CohortMembership | null | undefined,
  memo: CohortMemo,
  now: number,
): boolean {
  if (target === undefined) throw failure('dependency_not_found_cohort');
  if (target.failure !== undefined) throw target.failure;
  return membershipMatches(membership, isMember(target, person, staticCohorts, memo, now));
}

