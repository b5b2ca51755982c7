// One HTTP request for a hog function's fetch(), as PostHog's CDP makes it, with the
// guards user code needs: http and https only, no redirects followed, a time limit, a
// cap on the response size, and only addresses the policy allows (./address-policy.ts).
// The address is checked where it is used: the socket's own lookup hands the connection
// only allowed addresses (so a name that resolves to a private address, or re-resolves to
// one later, is refused), an address literal is checked before connecting, and the
// address actually connected to is checked again before a byte is sent. The request
// itself goes over a kept-alive socket of its origin (./http1.ts).
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { refusal, type AddressPolicy } from '../../net/address-policy.js';
import { cancel, createPool, exchange, type ExchangeResult, type Pending, type Pool } from './http1.js';

export interface FetchRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
}

export interface FetchSettings {
  policy: AddressPolicy;
  timeoutMs: number;
  maxResponseBytes: number;
}

// A response, whatever its status; or why there was none. `retryable` failures are
// connection-level (refused, reset, timed out); refusals by the policy and invalid URLs are not.
export type FetchOutcome =
  | { ok: true; status: number; body: unknown; retryAfter?: string }
  | { ok: false; retryable: boolean; message: string };

// PostHog's CDP fetch timeout.
export const FETCH_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 1024 * 1024;

class RefusedAddressError extends Error {
  override name = 'SecureRequestError';
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function guardedLookup(policy: AddressPolicy, host: string) {
  return (hostname: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const usable = addresses.filter((a) => refusal(a.address, policy, host) === null);
      if (usable.length === 0) {
        const first = addresses[0]?.address ?? hostname;
        return callback(new RefusedAddressError(`Refused to connect to ${hostname}: ${refusal(first, policy, host) ?? 'no address'}`), []);
      }
      if ((options as LookupAllOptions).all) return callback(null, usable);
      callback(null, usable[0].address, usable[0].family);
    });
  };
}

// PostHog hands the VM the body parsed as JSON when it is JSON, else the text.
function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

// What a URL comes to, worked out once per URL and policy (a destination fetches the same
// few URLs over and over): the sockets of its origin and its path, or why not.
type Target = { refused: FetchOutcome } | { refused: null; pool: Pool; path: string; sweeps: Map<number, Sweep> };

const MAX_TARGETS = 1024;
const targets = new WeakMap<AddressPolicy, Map<string, Target>>();
// Per policy, the sockets of each origin (`protocol//host:port`): the URLs of one origin
// share them.
const pools = new WeakMap<AddressPolicy, Map<string, Pool>>();

function targetOf(text: string, policy: AddressPolicy): Target {
  let known = targets.get(policy);
  if (!known) targets.set(policy, (known = new Map()));
  let target = known.get(text);
  if (target) return target;
  target = resolveTarget(text, policy);
  if (known.size >= MAX_TARGETS) known.clear();
  known.set(text, target);
  return target;
}

function resolveTarget(text: string, policy: AddressPolicy): Target {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { refused: { ok: false, retryable: false, message: `Invalid URL: ${text}` } };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { refused: { ok: false, retryable: false, message: `Invalid URL: only http and https can be fetched, not ${url.protocol}` } };
  }
  const host = bareHost(url.hostname);
  if (isIP(host) !== 0) {
    const why = refusal(host, policy, host);
    if (why !== null) return { refused: { ok: false, retryable: false, message: `SecureRequestError: Refused to connect to ${host}: ${why}` } };
  }
  const secure = url.protocol === 'https:';
  const port = url.port === '' ? (secure ? 443 : 80) : Number(url.port);
  let origins = pools.get(policy);
  if (!origins) pools.set(policy, (origins = new Map()));
  const key = `${url.protocol}//${url.host}`;
  let pool = origins.get(key);
  if (!pool) {
    pool = createPool({
      secure, host, port, authority: url.host, lookup: guardedLookup(policy, host) as unknown as LookupFunction,
      refused: (address) => {
        const why = address === undefined ? 'no address' : refusal(address, policy, host);
        return why === null ? null : new RefusedAddressError(`Refused to connect to ${address ?? host}: ${why}`);
      },
    });
    origins.set(key, pool);
  }
  return { refused: null, pool, path: `${url.pathname}${url.search}`, sweeps: new Map() };
}

// A fetch under way, until its answer or its time limit, whichever comes first.
interface Call {
  // Null once settled.
  resolve: ((outcome: FetchOutcome) => void) | null;
  pending: Pending | null;
  deadline: number;
  sweep: Sweep;
  maxResponseBytes: number;
  // Its neighbours in its sweep's list while it is not settled.
  prev: Call | null;
  next: Call | null;
}

// The time limits of one target's fetches with one limit: its calls not settled, in the order
// they started (so in the order their time runs out), and one timer, for the first of them,
// instead of a timer per request. A call leaves the list as it settles, so the list holds
// only calls in flight.
interface Sweep {
  pool: Pool;
  timeoutMs: number;
  first: Call | null;
  last: Call | null;
  timer: NodeJS.Timeout | null;
}

function sweepOf(target: Extract<Target, { refused: null }>, timeoutMs: number): Sweep {
  let sweep = target.sweeps.get(timeoutMs);
  if (!sweep) target.sweeps.set(timeoutMs, (sweep = { pool: target.pool, timeoutMs, first: null, last: null, timer: null }));
  return sweep;
}

function append(sweep: Sweep, call: Call): void {
  call.prev = sweep.last;
  if (sweep.last === null) sweep.first = call;
  else sweep.last.next = call;
  sweep.last = call;
  arm(sweep);
}

function unlink(call: Call): void {
  const { sweep, prev, next } = call;
  if (prev === null) sweep.first = next;
  else prev.next = next;
  if (next === null) sweep.last = prev;
  else next.prev = prev;
  call.prev = null;
  call.next = null;
}

// The timer is left as it is when the first call settles: it comes due at that call's
// deadline, then is set for the first call then.
function arm(sweep: Sweep): void {
  if (sweep.timer !== null || sweep.first === null) return;
  // Unreferenced: a call in flight keeps the process running by its socket.
  sweep.timer = setTimeout(timeUp, Math.max(0, sweep.first.deadline - Date.now()), sweep).unref();
}

// When the timer comes due, an answer may be waiting unread in the socket: a thread kept busy
// past the limit (a large batch's transaction) runs due timers before it reads sockets again.
// setImmediate runs after that read, so an answer that came in time is taken rather than
// failed as a timeout and sent again.
function timeUp(sweep: Sweep): void {
  setImmediate(timeOut, sweep);
}

function timeOut(sweep: Sweep): void {
  sweep.timer = null;
  const now = Date.now();
  let call: Call | null;
  while ((call = sweep.first) !== null && call.deadline <= now) {
    const pending = call.pending;
    settle(call, { ok: false, retryable: true, message: `TimeoutError: the request took longer than ${sweep.timeoutMs / 1000}s` });
    if (pending !== null) cancel(sweep.pool, pending);
  }
  arm(sweep);
}

function settle(call: Call, outcome: FetchOutcome): void {
  const resolve = call.resolve;
  if (resolve === null) return;
  call.resolve = null;
  call.pending = null;
  unlink(call);
  resolve(outcome);
}

function answered(result: ExchangeResult, call: Call): void {
  if (call.resolve === null) return;
  if (result.ok) {
    const body = parseBody(result.body.toString('utf8'));
    settle(call, result.retryAfter === undefined ? { ok: true, status: result.status, body } : { ok: true, status: result.status, body, retryAfter: result.retryAfter });
  }
  else if ('tooLarge' in result) settle(call, { ok: false, retryable: false, message: `ResponseTooLarge: the response is larger than ${call.maxResponseBytes} bytes` });
  else settle(call, { ok: false, retryable: !(result.error instanceof RefusedAddressError), message: `${result.error.name}: ${result.error.message}` });
}

// The promise's resolve, taken without a closure made per call.
let resolved: ((outcome: FetchOutcome) => void) | null = null;
const take = (resolve: (outcome: FetchOutcome) => void) => {
  resolved = resolve;
};

export function httpFetch(request: FetchRequest, settings: FetchSettings): Promise<FetchOutcome> {
  const target = targetOf(request.url, settings.policy);
  if (target.refused !== null) return Promise.resolve(target.refused);
  const sweep = sweepOf(target, settings.timeoutMs);
  const promise = new Promise<FetchOutcome>(take);
  const call: Call = { resolve: resolved, pending: null, deadline: Date.now() + settings.timeoutMs, sweep, maxResponseBytes: settings.maxResponseBytes, prev: null, next: null };
  resolved = null;
  append(sweep, call);
  try {
    // Throws, as node:http did, for a method or header it would not send.
    call.pending = exchange(target.pool, {
      method: request.method, path: target.path, headers: request.headers, body: request.body, maxResponseBytes: settings.maxResponseBytes,
    }, answered, call);
  } catch (err) {
    unlink(call);
    return Promise.reject(err);
  }
  return promise;
}
