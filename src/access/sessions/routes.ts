// Sign-in and sign-out of the web app (PostHog's paths: POST /api/login, /api/logout).
// Failed sign-ins are counted per email and per address, cluster-wide (./attempts.ts).
import { errors } from '../../errors.js';
import { jsonObject } from '../../http/body.js';
import { charField } from '../../http/fields.js';
import { json, noContent } from '../../http/reply.js';
import type { HttpRequest, Route } from '../../http/types.js';
import { me } from '../users/serialize.js';
import type { TenancyStore } from '../tenancy/store.js';
import type { AttemptLimiter } from './attempts.js';
import { checkSameOrigin, clearedCookie, sessionCookie, sessionToken } from './cookie.js';
import type { SessionStore } from './store.js';

export interface SessionRoutesOptions {
  tenancy: TenancyStore;
  sessions: SessionStore;
  attempts: AttemptLimiter;
  ttlMs: number;
}

const BODY_LIMIT = 16 * 1024;

export function sessionRoutes({ tenancy, sessions, attempts, ttlMs }: SessionRoutesOptions): Route[] {
  async function signIn(req: HttpRequest) {
    checkSameOrigin(req);
    const body = jsonObject(req);
    const email = charField(body, 'email', { max: 254 });
    const password = body.password;
    if (!email) throw errors.required('email');
    if (typeof password !== 'string' || password === '') throw errors.required('password');
    const keys = [`email:${email.toLowerCase()}`, `ip:${req.ip}`];
    attempts.admit(keys);
    const user = await sessions.check(email, password);
    if (!user) {
      await attempts.fail(keys);
      throw errors.invalidCredentials();
    }
    await attempts.clear(keys[0]);
    const { token } = await sessions.open(user);
    const body200 = me(user, tenancy.organization(user.organization_id), tenancy.project(user.current_project_id));
    return json(200, body200, { 'Set-Cookie': sessionCookie(req, token, Math.floor(ttlMs / 1000)), 'Cache-Control': 'no-store' });
  }

  async function signOut(req: HttpRequest) {
    checkSameOrigin(req);
    const token = sessionToken(req);
    if (token) await sessions.close(token);
    return { ...noContent(), headers: { 'Set-Cookie': clearedCookie(req) } };
  }

  return [
    { methods: ['POST'], pattern: '/api/login', bodyLimit: BODY_LIMIT, handler: signIn },
    { methods: ['POST'], pattern: '/api/logout', bodyLimit: BODY_LIMIT, handler: signOut },
  ];
}
