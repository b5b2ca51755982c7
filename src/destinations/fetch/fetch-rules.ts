// PostHog's rules around a hog function's fetch(url, {method, headers, body}), pure: how
// the call becomes a request, which failures are retried and after how long, what the
// function's log says about a failure, and what the program gets back.
import type { FetchOutcome, FetchRequest } from './http-fetch.js';

// CDP_FETCH_RETRIES: attempts in all, the first included.
export const FETCH_ATTEMPTS = 3;
const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504]);

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

// POST unless told otherwise; a JSON content type only when no headers are given; header
// values that are not strings dropped; objects sent as JSON; GET and HEAD send no body.
export function fetchRequest(url: unknown, options: unknown): FetchRequest {
  const opts = isDict(options) ? options : {};
  const method = String(opts.method ?? 'POST').toUpperCase();
  const given = isDict(opts.headers) ? opts.headers : null;
  const headers: Record<string, string> = {};
  if (given === null) headers['Content-Type'] = 'application/json';
  // Own keys in Object.entries' order, without its pairs made per call.
  else for (const name in given) {
    const value = given[name];
    if (typeof value === 'string' && Object.hasOwn(given, name)) headers[name] = value;
  }
  const raw = opts.body;
  const body = method === 'GET' || method === 'HEAD' || raw === undefined || raw === null
    ? null
    : typeof raw === 'string' ? raw : JSON.stringify(raw);
  return { url: String(url), method, headers, body };
}

export function failed(outcome: FetchOutcome): boolean {
  return !outcome.ok || outcome.status >= 400;
}

// Whether a failed attempt (1-based) is tried again.
export function retried(outcome: FetchOutcome, attempt: number): boolean {
  if (attempt >= FETCH_ATTEMPTS) return false;
  return outcome.ok ? RETRIED_STATUSES.has(outcome.status) : outcome.retryable;
}

// PostHog's backoff before attempt `attempt + 1`: a second per attempt so far plus up to a
// second of jitter, at most 30 s. `random` in [0, 1).
export function backoffMs(attempt: number, random: number): number {
  return Math.min(1000 * attempt + Math.floor(random * 1000), 30_000);
}

// Beyond PostHog (its issue #92214: retries of a 429 all land within seconds and are lost):
// a 429 or 503 that says when to come back (Retry-After, in seconds or as an HTTP date) is
// waited for, at most this long; the function's other fetches wait with it.
export const RETRY_AFTER_MAX_MS = 60_000;

// How long a failed answer asks the client to wait, capped; null when it does not say.
export function retryAfterMs(outcome: FetchOutcome, nowMs: number): number | null {
  if (!outcome.ok || (outcome.status !== 429 && outcome.status !== 503)) return null;
  const given = outcome.retryAfter;
  if (given === undefined || given === '') return null;
  let ms: number;
  if (/^\d+$/.test(given)) ms = Number(given) * 1000;
  else {
    const at = Date.parse(given);
    if (Number.isNaN(at)) return null;
    ms = at - nowMs;
  }
  return Math.min(Math.max(ms, 0), RETRY_AFTER_MAX_MS);
}

export function failureLog(outcome: FetchOutcome, attempt: number, retrying: boolean): string {
  const status = outcome.ok ? outcome.status : '(none)';
  const error = outcome.ok ? '' : ` Error: ${outcome.message}.`;
  return `HTTP fetch failed on attempt ${attempt} with status code ${status}.${error}${retrying ? ' Retrying.' : ''}`;
}

// What fetch() returns to the program: the response, or status 500 and the error's text.
export function programResponse(outcome: FetchOutcome): { status: number; body: unknown } {
  return outcome.ok ? { status: outcome.status, body: outcome.body } : { status: 500, body: outcome.message };
}
