// Failed sign-ins, counted per email and per address: past `limit` failures within
// `windowMs` the key is refused (429, with Retry-After) until its window ends, whatever
// the password, so guessing costs a window per `limit` tries. A success clears its email.
import { errors } from '../../errors.js';

export interface AttemptLimiterOptions {
  limit: number;
  windowMs: number;
  now?: () => number;
}

export function createAttemptLimiter({ limit, windowMs, now = Date.now }: AttemptLimiterOptions) {
  // Key → the start of its window and the failures in it.
  const failures = new Map<string, { since: number; count: number }>();

  function live(key: string, t: number) {
    const entry = failures.get(key);
    if (entry && t - entry.since >= windowMs) {
      failures.delete(key);
      return undefined;
    }
    return entry;
  }

  return {
    // Throws the 429 when any of the keys has used its failures.
    admit(keys: readonly string[]): void {
      const t = now();
      for (const key of keys) {
        const entry = live(key, t);
        if (entry && entry.count >= limit) throw errors.throttled(Math.max(1, Math.ceil((entry.since + windowMs - t) / 1000)));
      }
    },
    fail(keys: readonly string[]): void {
      const t = now();
      // A crowd of addresses must not grow the map without end: the oldest go first.
      if (failures.size > 100_000) for (const k of failures.keys()) { failures.delete(k); if (failures.size < 50_000) break; }
      for (const key of keys) {
        const entry = live(key, t);
        if (entry) entry.count++;
        else failures.set(key, { since: t, count: 1 });
      }
    },
    clear(key: string): void {
      failures.delete(key);
    },
  };
}

export type AttemptLimiter = ReturnType<typeof createAttemptLimiter>;
