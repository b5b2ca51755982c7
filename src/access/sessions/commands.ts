// Passwords and sessions as management commands (src/state/), in access's tenancy table:
// ['password', user id] → the scrypt string; ['session', SHA-256 of the token] → the
// session; ['session_of', user id, token hash] → its expiry, so that a user's expired
// sessions are dropped when they sign in again; ['signin_failure', key] → the failures of a
// sign-in key (an email or an address) in its window, with ['signin_since', start, key] so
// that windows past their end are dropped by the next failure. Times come in the payload.
import type { AccessTables } from '../tables.js';
import { commandsOn } from '../../state/index.js';

const defineCommand = commandsOn<AccessTables>();

export interface Session {
  token_hash: string;
  user_id: number;
  created_at: string;
  expires_at: string;
}

export const setPassword = defineCommand('access.set_password', (store, { user_id, hash }: { user_id: number; hash: string }): boolean => {
  if (store.tenancy.get(['user', user_id]) === undefined) return false;
  store.tenancy.put(['password', user_id], hash);
  // A new password ends every session the old one opened.
  for (const { key } of store.tenancy.getRange({ start: ['session_of', user_id], end: ['session_of', user_id, '\uffff'] })) {
    const tokenHash = (key as (string | number)[])[2] as string;
    store.tenancy.remove(['session', tokenHash]);
    store.tenancy.remove(key as (string | number)[]);
  }
  return true;
});

export const openSession = defineCommand('access.open_session', (store, session: Session): void => {
  const now = Date.parse(session.created_at);
  for (const { key, value } of store.tenancy.getRange({ start: ['session_of', session.user_id], end: ['session_of', session.user_id, '\uffff'] })) {
    if (Date.parse(value as string) > now) continue;
    store.tenancy.remove(['session', (key as (string | number)[])[2] as string]);
    store.tenancy.remove(key as (string | number)[]);
  }
  store.tenancy.put(['session', session.token_hash], session);
  store.tenancy.put(['session_of', session.user_id, session.token_hash], session.expires_at);
});

export const closeSession = defineCommand('access.close_session', (store, { token_hash }: { token_hash: string }): void => {
  const session = store.tenancy.get(['session', token_hash]) as Session | undefined;
  if (!session) return;
  store.tenancy.remove(['session', token_hash]);
  store.tenancy.remove(['session_of', session.user_id, token_hash]);
});

export interface SignInFailures {
  since: number;
  count: number;
}

export const failureOf = (store: AccessTables, key: string) => store.tenancy.get(['signin_failure', key]) as SignInFailures | undefined;

function dropFailures(store: AccessTables, key: string): void {
  const entry = failureOf(store, key);
  if (!entry) return;
  store.tenancy.remove(['signin_failure', key]);
  store.tenancy.remove(['signin_since', entry.since, key]);
}

// One failed sign-in of each key: counted in the key's window, or a new window from `at`.
// Windows that ended before `at` go first, so the records of a crowd of addresses do not grow.
export const recordSignInFailures = defineCommand('access.sign_in_failed', (store, { keys, at, window_ms }: { keys: string[]; at: number; window_ms: number }): void => {
  const ended = [...store.tenancy.getRange({ start: ['signin_since', 0], end: ['signin_since', at - window_ms, '\uffff'] })];
  for (const { key } of ended) dropFailures(store, (key as (string | number)[])[2] as string);
  for (const key of keys) {
    const entry = failureOf(store, key);
    if (entry && at - entry.since < window_ms) {
      store.tenancy.put(['signin_failure', key], { since: entry.since, count: entry.count + 1 });
      continue;
    }
    dropFailures(store, key);
    store.tenancy.put(['signin_failure', key], { since: at, count: 1 });
    store.tenancy.put(['signin_since', at, key], true);
  }
});

export const clearSignInFailures = defineCommand('access.sign_in_cleared', (store, { key }: { key: string }): void => dropFailures(store, key));

export const sessionCommands = [setPassword, openSession, closeSession, recordSignInFailures, clearSignInFailures];
