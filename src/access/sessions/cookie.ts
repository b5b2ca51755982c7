// The session cookie, and what a request authenticated by it must show beyond it: the
// browser sends a cookie with requests other sites start too, so a write must carry the
// app's own header (a cross-site form cannot set one) and any Origin must be this host's
// (CORS is permissive for the SDKs, so a preflight would not stop another origin's fetch).
import { errors } from '../../errors.js';
import type { HttpRequest } from '../../http/types.js';

export const SESSION_COOKIE = 'hedgerow_session';
// What the app sends with every write it makes under a session.
export const APP_HEADER = 'x-hedgerow-app';

export function sessionToken(req: HttpRequest): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return value === '' ? null : value;
    }
  }
  return null;
}

// Served over TLS, as far as hedgerow can tell: it speaks plain HTTP itself, so TLS is a
// proxy's in front of it, which says so in X-Forwarded-Proto.
const overTls = (req: HttpRequest) => (req.headers['x-forwarded-proto'] ?? '').split(',')[0].trim().toLowerCase() === 'https';

export function sessionCookie(req: HttpRequest, token: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${overTls(req) ? '; Secure' : ''}`;
}

export function clearedCookie(req: HttpRequest): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${overTls(req) ? '; Secure' : ''}`;
}

// Throws unless the request may act under the session it carries.
export function checkSameOrigin(req: HttpRequest): void {
  const origin = req.headers.origin;
  if (origin !== undefined) {
    let host: string | null = null;
    try { host = new URL(origin).host; } catch { /* "null" and garbage are not this host */ }
    if (host === null || host !== req.headers.host) throw errors.csrfFailed('Origin checking failed - the request does not come from this host.');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD' && req.headers[APP_HEADER] === undefined) {
    throw errors.csrfFailed(`a write under a session needs the ${APP_HEADER} header.`);
  }
}
