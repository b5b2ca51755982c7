// Sessions of the web app: a random token in an HttpOnly cookie, only its SHA-256 stored
// (as personal keys), answered as the user it belongs to until it expires or is closed.
// Sign-in verifies the user's scrypt password; writes go through the management write
// path, so every node of a cluster knows every session.
import { randomBytes } from 'node:crypto';
import type { AccessTables } from '../tables.js';
import type { StateWrites } from '../../state/index.js';
import type { User } from '../tenancy/types.js';
import { hashKey } from '../tenancy/keys.js';
import { closeSession, openSession, setPassword, type Session } from './commands.js';
import { decoyHash, hashPassword, verifyPassword } from './password.js';

export interface SessionStoreOptions {
  store: AccessTables;
  writes: StateWrites;
  ttlMs: number;
  clock?: () => Date;
}

export function createSessionStore({ store, writes, ttlMs, clock = () => new Date() }: SessionStoreOptions) {
  const db = store.tenancy;
  const userOf = (id: number) => db.get(['user', id]) as User | undefined;

  return {
    async setPassword(userId: number, password: string): Promise<boolean> {
      return writes.submit(setPassword, { user_id: userId, hash: await hashPassword(password) });
    },

    hasPassword: (userId: number): boolean => db.get(['password', userId]) !== undefined,

    // The user whose password this is, or null; as slow for an unknown email as for a wrong password.
    async check(email: string, password: string): Promise<User | null> {
      const id = db.get(['user_email', email.trim().toLowerCase()]) as number | undefined;
      const stored = id === undefined ? undefined : (db.get(['password', id]) as string | undefined);
      const ok = await verifyPassword(password, stored ?? await decoyHash());
      return ok && stored !== undefined && id !== undefined ? userOf(id) ?? null : null;
    },

    // A new session for the user: its token, shown to the browser once.
    async open(user: User): Promise<{ token: string; session: Session }> {
      const token = randomBytes(32).toString('base64url');
      const now = clock();
      const session: Session = {
        token_hash: hashKey(token), user_id: user.id, created_at: now.toISOString(), expires_at: new Date(now.getTime() + ttlMs).toISOString(),
      };
      await writes.submit(openSession, session);
      return { token, session };
    },

    // The session a token names while it lasts, with its user.
    resolve(token: string): { session: Session; user: User } | null {
      const session = db.get(['session', hashKey(token)]) as Session | undefined;
      if (!session || Date.parse(session.expires_at) <= clock().getTime()) return null;
      const user = userOf(session.user_id);
      return user ? { session, user } : null;
    },

    close: (token: string): Promise<void> => writes.submit(closeSession, { token_hash: hashKey(token) }),
  };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
