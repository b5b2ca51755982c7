// A cohort's `filters` as PostHog checks them (its pydantic CohortFilters model):
// {properties: {type: AND|OR, values: [...]}} where values are nested groups or person,
// cohort and behavioral filters, each with exactly its own keys. Missing keys read as
// PostHog words them; other shape errors say where. Plus: person filters must use an
// operator the evaluator knows, and cohorts may not reference each other in a loop.
import { errors } from '../../errors.js';
import { PROPERTY_OPERATORS } from '../../matching/index.js';
import type { PropertyFilterDefinition, PropertyGroupDefinition } from '../types.js';
import { cohortIdOf, flatProperties } from '../definitions/cohort-refs.js';
import type { StoredCohort } from '../definitions/types.js';
import { isObject } from '../../json.js';

type Obj = Record<string, unknown>;
// DRF's default code "invalid" reaches clients as "invalid_input" (drf-exceptions-hog).
const invalid = (detail: string, code?: string) => errors.validation(detail, 'filters', code);
const KNOWN_OPERATORS: ReadonlySet<string> = new Set(PROPERTY_OPERATORS);

const FIELDS = {
  person: { required: ['key'], optional: ['operator', 'value', 'negation'] },
  cohort: { required: ['key', 'value'], optional: ['negation'] },
  behavioral: {
    required: ['key', 'value', 'event_type'],
    optional: ['time_value', 'time_interval', 'negation', 'operator', 'operator_value', 'seq_time_interval', 'seq_time_value',
      'seq_event', 'seq_event_type', 'total_periods', 'min_periods', 'event_filters', 'explicit_datetime'],
  },
} as const;

function checkKeys(node: Obj, kind: keyof typeof FIELDS, at: string): void {
  const { required, optional } = FIELDS[kind];
  const missing = required.filter((k) => !(k in node));
  if (missing.length > 0) throw invalid(`Missing required keys for ${kind} filter: ${missing[0]}`);
  const allowed = new Set<string>(['type', ...required, ...optional]);
  const extra = Object.keys(node).find((k) => !allowed.has(k));
  if (extra !== undefined) throw invalid(`Invalid cohort filters at ${at}: unexpected key '${extra}'`);
  if ('negation' in node && typeof node.negation !== 'boolean') throw invalid(`Invalid cohort filters at ${at}.negation: expected a boolean`);
}

function checkFilter(node: Obj, at: string): void {
  switch (node.type) {
    case 'person': {
      checkKeys(node, 'person', at);
      if (typeof node.key !== 'string') throw invalid(`Invalid cohort filters at ${at}.key: expected a string`);
      const operator = node.operator ?? null;
      const value = node.value ?? null;
      const missing = [
        ...(value === null && operator !== 'is_set' && operator !== 'is_not_set' ? ['value'] : []),
        ...(operator === null ? ['operator'] : []),
      ];
      if (missing.length > 0) throw invalid(`Missing required keys for person filter: ${missing.join(', ')}`);
      if (typeof operator !== 'string' || !KNOWN_OPERATORS.has(operator)) {
        throw invalid(`Unknown operator '${String(operator)}' on property '${node.key}'.`, 'invalid_operator');
      }
      return;
    }
    case 'cohort':
      checkKeys(node, 'cohort', at);
      if (node.key !== 'id') throw invalid(`Invalid cohort filters at ${at}.key: expected 'id'`);
      if (typeof node.value !== 'number' || !Number.isInteger(node.value)) throw invalid(`Invalid cohort filters at ${at}.value: expected an integer`);
      return;
    case 'behavioral':
      checkKeys(node, 'behavioral', at);
      if (typeof node.value !== 'string' || typeof node.event_type !== 'string') {
        throw invalid(`Invalid cohort filters at ${at}: value and event_type must be strings`);
      }
      return;
    default:
      throw invalid(`Invalid cohort filters at ${at}.type: expected 'AND', 'OR', 'person', 'cohort' or 'behavioral'`);
  }
}

function checkGroup(node: Obj, at: string): void {
  if (node.type !== 'AND' && node.type !== 'OR') throw invalid(`Invalid cohort filters at ${at}.type: expected 'AND' or 'OR'`);
  const extra = Object.keys(node).find((k) => k !== 'type' && k !== 'values');
  if (extra !== undefined) throw invalid(`Invalid cohort filters at ${at}: unexpected key '${extra}'`);
  if (!Array.isArray(node.values)) throw invalid(`Invalid cohort filters at ${at}.values: expected a list`);
  node.values.forEach((v, i) => {
    const here = `${at}.values.${i}`;
    if (!isObject(v)) throw invalid(`Invalid cohort filters at ${here}: expected an object`);
    if (v.type === 'AND' || v.type === 'OR') checkGroup(v, here);
    else checkFilter(v, here);
  });
}

export function validateCohortFilters(raw: Obj): { properties: PropertyGroupDefinition } {
  if (!('properties' in raw)) throw invalid("Must contain a 'properties' key with type and values");
  const extra = Object.keys(raw).find((k) => k !== 'properties');
  if (extra !== undefined) throw invalid(`Invalid cohort filters: unexpected key '${extra}'`);
  if (!isObject(raw.properties)) throw invalid('Invalid cohort filters at properties: expected an object');
  checkGroup(raw.properties, 'properties');
  return raw as { properties: PropertyGroupDefinition };
}

const hasBehavioral = (group: PropertyGroupDefinition) => flatProperties(group).some((p) => p.type === 'behavioral');

const namedCohorts = (group: PropertyGroupDefinition): number[] =>
  flatProperties(group).flatMap((p: PropertyFilterDefinition) => {
    const id = p.type === 'cohort' ? cohortIdOf(p.value) : undefined;
    return id === undefined ? [] : [id];
  });

/** New filters of a cohort flags use: no event filters, neither here nor in the cohorts it names. */
export function checkUsableInFlags(filters: { properties: PropertyGroupDefinition }, cohorts: ReadonlyMap<number, StoredCohort>): void {
  if (hasBehavioral(filters.properties)) {
    throw invalid('Behavioral filters cannot be added to cohorts used in feature flags.', 'behavioral_cohort_found');
  }
  const seen = new Set<number>();
  const pending = namedCohorts(filters.properties);
  while (pending.length > 0) {
    const cohort = cohorts.get(pending.pop()!);
    if (!cohort || seen.has(cohort.id)) continue;
    seen.add(cohort.id);
    if (hasBehavioral(cohort.filters.properties)) {
      throw invalid(`A cohort dependency (${cohort.name ?? ''}) has filters based on events. These cohorts can't be used in feature flags.`, 'behavioral_cohort_found');
    }
    pending.push(...namedCohorts(cohort.filters.properties));
  }
}

/** Whether the cohort, with these filters, would reach itself through the cohorts it names. */
export function createsLoop(cohortId: number, filters: { properties: PropertyGroupDefinition }, cohorts: ReadonlyMap<number, StoredCohort>): boolean {
  const seen = new Set<number>();
  const pending = namedCohorts(filters.properties);
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id === cohortId) return true;
    const cohort = cohorts.get(id);
    if (!cohort || seen.has(id)) continue;
    seen.add(id);
    pending.push(...namedCohorts(cohort.filters.properties));
  }
  return false;
}
