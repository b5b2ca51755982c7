// Shared by the /decide and /flags HTTP tests and the differential test: creating flags
// and cohorts through the management API, capturing person and group events, and
// calling the evaluation endpoints.
import { gzipSync } from 'node:zlib';
import { postJson, request, bearer, eventually, type TestServer } from '../helpers/server.js';

export type Reply = { status: number; body: any; headers: Headers };

async function api(t: TestServer, method: string, path: string, body?: unknown): Promise<Reply> {
  return request(`${t.url}${path}`, {
    method,
    headers: { ...bearer(t.personalKey), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Creates a flag in `projectId` (default the test project) through the API; its stored form. */
export async function createFlag(t: TestServer, body: Record<string, unknown>, projectId = t.projectId): Promise<any> {
  const r = await api(t, 'POST', `/api/projects/${projectId}/feature_flags/`, body);
  if (r.status !== 201) throw new Error(`flag create ${String(body.key)}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function patchFlag(t: TestServer, id: number, body: Record<string, unknown>): Promise<any> {
  const r = await api(t, 'PATCH', `/api/projects/${t.projectId}/feature_flags/${id}/`, body);
  if (r.status !== 200) throw new Error(`flag patch ${id}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export async function createCohort(t: TestServer, body: Record<string, unknown>): Promise<any> {
  const r = await api(t, 'POST', `/api/projects/${t.projectId}/cohorts/`, body);
  if (r.status !== 201) throw new Error(`cohort create: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

export const setFlagQuota = (t: TestServer, limit: number | null) =>
  api(t, 'PATCH', '/api/organizations/@current/quota/', { feature_flag_requests: limit });

export const person = (key: string, operator: string, value?: unknown) =>
  (value === undefined ? { key, type: 'person', operator } : { key, type: 'person', operator, value });

export const group = (key: string, operator: string, value: unknown, groupTypeIndex = 0) =>
  ({ key, type: 'group', operator, value, group_type_index: groupTypeIndex });

/** Sends events to /batch/ as an SDK would; resolves once the log has them (200). */
export async function capture(t: TestServer, events: Record<string, unknown>[], token = t.projectKey): Promise<void> {
  const r = await postJson(`${t.url}/batch/`, { api_key: token, batch: events.map((e) => ({ timestamp: new Date().toISOString(), ...e })) });
  if (r.status !== 200) throw new Error(`capture: ${r.status} ${JSON.stringify(r.body)}`);
}

export const identify = (distinctId: string, set: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  ({ event: '$identify', distinct_id: distinctId, properties: { $set: set, ...extra } });

export const groupIdentify = (type: string, key: string, set: Record<string, unknown>) =>
  ({ event: '$groupidentify', distinct_id: `$${type}_${key}`, properties: { $group_type: type, $group_key: key, $group_set: set } });

/** POST {path} with a JSON body (api_key added); `init` adds headers. */
export function evaluate(t: TestServer, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}, token = t.projectKey): Promise<Reply> {
  return postJson(`${t.url}${path}`, { api_key: token, ...body }, headers);
}

export function gzipBody(body: unknown): Buffer {
  return gzipSync(Buffer.from(JSON.stringify(body)));
}

/** Waits until /decide?v=3 for `distinctId` answers `flagKey` with `value`. */
export async function decideUntil(t: TestServer, distinctId: string, flagKey: string, value: unknown, body: Record<string, unknown> = {}, timeoutMs = 10_000): Promise<void> {
  await eventually(async () => {
    const r = await evaluate(t, '/decide/?v=3', { distinct_id: distinctId, ...body });
    return r.status === 200 && r.body.featureFlags[flagKey] === value;
  }, timeoutMs);
}
