// A management API client for tests: one call per request, JSON in and out; and the
// server a suite of such tests runs against.
import type { Test } from 'uvu';
import { request, bearer, startTestServer, type TestServer, type TestServerOptions } from './server.js';

export type ApiCall = (method: string, path: string, key: string, body?: unknown) => Promise<{ status: number; body: any; headers: Headers }>;

export function apiClient(t: TestServer): ApiCall {
  return (method, path, key, body) => request(`${t.url}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

// Starts a fresh server before the suite's tests and closes it after them. `ready`
// gets the server and a client for it: the suite keeps them in its own variables.
export function serveSuite(s: Test, ready: (t: TestServer, api: ApiCall) => void, opts: TestServerOptions = {}): void {
  let server: TestServer | undefined;
  s.before(async () => {
    server = await startTestServer(opts);
    ready(server, apiClient(server));
  });
  s.after(async () => { await server?.close(); });
}

export const denied = (detail: string) => ({ type: 'authentication_error', code: 'permission_denied', detail, attr: null });
