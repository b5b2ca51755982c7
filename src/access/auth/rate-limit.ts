// Per-key request limit on the management API, PostHog's burst throttle (480 per
// minute by default): a key may make `limit` requests in any window of `windowMs`. A key
// over the limit waits until its oldest counted request leaves the window.
//
// Each key keeps a fixed ring of buckets (a sixtieth of the window each, and one more, so
// a bucket is reused only once all it held has left the window) holding how many
// requests it admitted in that slice of time and when the last of them came, so its
// memory does not grow with the limit (a log of every request time did: 730 MB for a
// limit of 100,000,000). A bucket counts until its last request leaves the window: exact
// when a bucket holds one request, and otherwise a refusal can come at most one bucket
// (a second, by default) early. Retry-After is exact either way.
import { errors } from '../../errors.js';

export interface RateLimiter {
  // Counts one request for `id`; throws the 429 throttled error when over the limit.
  hit(id: string): void;
}

export interface RateLimitOptions {
  limit: number;
  windowMs: number;
  now?: () => number;
}

const SLICES = 60;
const BUCKETS = SLICES + 1;

interface KeyLog {
  // Per bucket: its slice of time (floor(t / width)), requests admitted in it, the last one's time.
  slice: Float64Array;
  count: Float64Array;
  last: Float64Array;
}

export function createRateLimiter(opts: RateLimitOptions): RateLimiter {
  const { limit, windowMs } = opts;
  const now = opts.now ?? Date.now;
  const width = windowMs / SLICES;
  const logs = new Map<string, KeyLog>();

  return {
    hit(id) {
      const t = now();
      let log = logs.get(id);
      if (!log) {
        log = { slice: new Float64Array(BUCKETS).fill(-1), count: new Float64Array(BUCKETS), last: new Float64Array(BUCKETS) };
        logs.set(id, log);
      }
      const current = Math.floor(t / width);
      // Requests still in the window, and the bucket whose requests leave it first.
      let inWindow = 0;
      let oldestLast = Infinity;
      for (let b = 0; b < BUCKETS; b++) {
        if (log.slice[b] < 0 || log.count[b] === 0 || t - log.last[b] >= windowMs) continue;
        inWindow += log.count[b];
        if (log.last[b] < oldestLast) oldestLast = log.last[b];
      }
      if (inWindow >= limit) {
        // Refused requests are not counted, as in DRF, so a client that backs off gets in on time.
        throw errors.throttled(Math.max(1, Math.ceil((oldestLast + windowMs - t) / 1000)));
      }
      const b = current % BUCKETS;
      if (log.slice[b] !== current) {
        log.slice[b] = current;
        log.count[b] = 0;
      }
      log.count[b]++;
      log.last[b] = t;
    },
  };
}
