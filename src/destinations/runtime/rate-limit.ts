// A function's rate limit (beyond PostHog: its issue #92214, retries of a rate-limited
// endpoint all landing within seconds): a token bucket that refills `rate` tokens a second
// and holds a second's worth (at least one), so a burst never exceeds what the endpoint
// takes in a second.
export interface Bucket {
  tokens: number;
  at: number;
}

/** Takes a token at `now` (ms): null when taken, else when the next one comes. */
export function takeToken(bucket: Bucket, rate: number, now: number): number | null {
  const size = Math.max(1, rate);
  bucket.tokens = Math.min(size, bucket.tokens + ((now - bucket.at) * rate) / 1000);
  bucket.at = now;
  if (bucket.tokens >= 1) {
    bucket.tokens -= 1;
    return null;
  }
  return now + Math.ceil(((1 - bucket.tokens) * 1000) / rate);
}
