// Failed sign-ins, counted per email and per address: past `limit` failures within
// `windowMs` the key is refused (429, with Retry-After) until its window ends, whatever
// the password, so guessing costs a window per `limit` tries. A success clears its email.
// The counts are access's records, written through the management write path
// (./commands.ts), so on a cluster every node counts the same failures: a guesser spread
// over the nodes gets `limit` tries in all, not `limit` per node.
import { errors } from '../../errors.js';
import type { AccessTables } from '../tables.js';
import type { StateWrites } from '../../state/index.js';
import { clearSignInFailures, failureOf, recordSignInFailures } from './commands.js';

export interface AttemptLimiterOptions {
  store: AccessTables;
  writes: StateWrites;
  limit: number;
  windowMs: number;
  now?: () => number;
}

export function createAttemptLimiter({ store, writes, limit, windowMs, now = Date.now }: AttemptLimiterOptions) {
  return {
    // Throws the 429 when any of the keys has used its failures.
    admit(keys: readonly string[]): void {
      const t = now();
      for (const key of keys) {
        const entry = failureOf(store, key);
        if (entry && t - entry.since < windowMs && entry.count >= limit) {
          throw errors.throttled(Math.max(1, Math.ceil((entry.since + windowMs - t) / 1000)));
        }
      }
    },
    // Counted once the write has landed on this node (the others follow it).
    fail: (keys: readonly string[]): Promise<void> => writes.submit(recordSignInFailures, { keys: [...keys], at: now(), window_ms: windowMs }),
    // Only a key with failures costs a write.
    async clear(key: string): Promise<void> {
      if (failureOf(store, key)) await writes.submit(clearSignInFailures, { key });
    },
  };
}

export type AttemptLimiter = ReturnType<typeof createAttemptLimiter>;
