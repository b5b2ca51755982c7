// Passwords and sessions as management commands (src/state/), in access's tenancy table:
// ['password', user id] → the scrypt string; ['session', SHA-256 of the token] → the
// session; ['session_of', user id, token hash] → its expiry, so that a user's expired
// sessions are dropped when they sign in again. Times come in the payload.
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

export const sessionCommands = [setPassword, openSession, closeSession];
