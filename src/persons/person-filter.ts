// The person list's filters as one predicate. Pure; property operators are the shared
// ones flag evaluation uses (src/matching/), applied at the time given.
import type { PersonRecord } from './tables.js';
import { compileOperator, type ValueTest } from '../matching/index.js';
import type { PersonPropertyFilters } from './schemas.js';

export interface PersonFilterSpec {
  // Case-insensitive substring of the email, the name, the uuid or any distinct id.
  search?: string;
  // Exact email.
  email?: string;
  properties?: PersonPropertyFilters;
}

export type PersonPredicate = (p: PersonRecord) => boolean;

function text(value: unknown): string {
  return value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);
}

export function personFilter(spec: PersonFilterSpec, now: number): PersonPredicate {
  const tests: PersonPredicate[] = [];
  const search = spec.search?.trim().toLowerCase();
  if (search) {
    const has = (v: unknown) => text(v).toLowerCase().includes(search);
    tests.push((p) => has(p.properties.email) || has(p.properties.name) || has(p.uuid) || p.distinct_ids.some(has));
  }
  if (spec.email !== undefined) {
    const email = spec.email;
    tests.push((p) => p.properties.email === email);
  }
  for (const f of spec.properties ?? []) {
    const test: ValueTest = compileOperator(f.operator, f.value);
    tests.push((p) => test(p.properties[f.key], now));
  }
  return (p) => tests.every((t) => t(p));
}
