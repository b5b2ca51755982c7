// A management API client for tests: one call per request, JSON in and out.
import { request, bearer, type TestServer } from './server.js';

export type ApiCall = (method: string, path: string, key: string, body?: unknown) => Promise<{ status: number; body: any; headers: Headers }>;

export function apiClient(t: TestServer): ApiCall {
  return (method, path, key, body) => request(`${t.url}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });
