// Shared by the flag, cohort and feed API tests: paths, bodies and PostHog error bodies.
import type { ApiCall } from '../../helpers/api.js';
import type { TestServer } from '../../helpers/server.js';

export const flagsPath = (t: TestServer, prefix = 'projects') => `/api/${prefix}/${t.projectId}/feature_flags/`;
export const cohortsPath = (t: TestServer, prefix = 'projects') => `/api/${prefix}/${t.projectId}/cohorts/`;

// PostHog reports DRF's default code "invalid" as "invalid_input".
export const invalid = (detail: string, attr: string | null = 'filters', code = 'invalid_input') =>
  ({ type: 'validation_error', code, detail, attr });

export const person = (key: string, operator: string, value?: unknown) =>
  (value === undefined ? { key, type: 'person', operator } : { key, type: 'person', operator, value });

/** A flag body: key plus filters with these conditions. */
export const flagBody = (key: string, groups: unknown[], extra: Record<string, unknown> = {}) =>
  ({ key, ...extra, filters: { groups, ...(extra.filters as object | undefined) } });

let unique = 0;
/** A key no other test uses. */
export const freshKey = (stem = 'flag') => `${stem}-${++unique}-${Date.now().toString(36)}`;

export async function createFlag(api: ApiCall, t: TestServer, body: Record<string, unknown>) {
  const r = await api('POST', flagsPath(t), t.personalKey, body);
  if (r.status !== 201) throw new Error(`flag create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function createCohort(api: ApiCall, t: TestServer, body: Record<string, unknown>) {
  const r = await api('POST', cohortsPath(t), t.personalKey, body);
  if (r.status !== 201) throw new Error(`cohort create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A dynamic cohort's filters: an OR of one AND of these person filters. */
export const cohortFilters = (...values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });
