// Per-key request limit on the management API, PostHog's burst throttle (480 per
// minute by default): a sliding log of the last `limit` request times per key. A key
// over the limit waits until its oldest logged request leaves the window.
import { errors } from '../errors.js';

export interface RateLimiter {
  // Counts one request for `id`; throws the 429 throttled error when over the limit.
  hit(id: string): void;
}

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  now?: () => number;
}

export function createRateLimiter(opts: RateLimitOptions): RateLimiter {
  const { limit, windowMs } = opts;
  const now = opts.now ?? Date.now;
  // Ring buffer of the last `limit` request times per key; `next` is the oldest slot.
  const logs = new Map<string, { times: Float64Array; next: number }>();

  return {
    hit(id) {
      const t = now();
      let log = logs.get(id);
      if (!log) {
        log = { times: new Float64Array(limit).fill(-Infinity), next: 0 };
        logs.set(id, log);
      }
      const oldest = log.times[log.next];
      if (t - oldest < windowMs) {
        // Refused requests are not logged, as in DRF, so a client that backs off gets in on time.
        throw errors.throttled(Math.max(1, Math.ceil((oldest + windowMs - t) / 1000)));
      }
      log.times[log.next] = t;
      log.next = (log.next + 1) % limit;
    },
  };
}
