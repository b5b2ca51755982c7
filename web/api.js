// Calls to hedgerow's own API under the session cookie. Every write carries the app's
// header (the server refuses a session write without it: CSRF).
export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.detail ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function api(path, { method = 'GET', body } = {}) {
  const headers = { Accept: 'application/json' };
  if (method !== 'GET') headers['X-Hedgerow-App'] = '1';
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 204) return null;
  const data = await res.json().catch(() => null);
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

// The signed-in user's current project.
export const project = (path) => `/api/projects/@current/${path}`;

// A hog function's path, and what hangs under it (`/logs`, `/metrics`, `/invocations`).
export const fnPath = (id, rest = '') => project(`hog_functions/${encodeURIComponent(id)}${rest}`);
