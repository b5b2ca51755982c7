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
import { createPool, exchange, type Pool } from './http1.js';

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
type Target = { refused: FetchOutcome } | { refused: null; pool: Pool; path: string };

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
  return { refused: null, pool, path: `${url.pathname}${url.search}` };
}

export function httpFetch(request: FetchRequest, settings: FetchSettings): Promise<FetchOutcome> {
  const target = targetOf(request.url, settings.policy);
  if (target.refused !== null) return Promise.resolve(target.refused);
  return new Promise<FetchOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: FetchOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    // Throws, as node:http did, for a method or header it would not send.
    const cancel = exchange(target.pool, {
      method: request.method, path: target.path, headers: request.headers, body: request.body, maxResponseBytes: settings.maxResponseBytes,
    }, (result) => {
      if (result.ok) {
        const body = parseBody(result.body.toString('utf8'));
        finish(result.retryAfter === undefined ? { ok: true, status: result.status, body } : { ok: true, status: result.status, body, retryAfter: result.retryAfter });
      }
      else if ('tooLarge' in result) finish({ ok: false, retryable: false, message: `ResponseTooLarge: the response is larger than ${settings.maxResponseBytes} bytes` });
      else finish({ ok: false, retryable: !(result.error instanceof RefusedAddressError), message: `${result.error.name}: ${result.error.message}` });
    });
    // When the timer comes due, the answer may be waiting unread in the socket: a thread kept
    // busy past the limit (a large batch's transaction) runs due timers before it reads
    // sockets again. setImmediate runs after that read, so an answer that came in time is
    // taken rather than failed as a timeout and sent again.
    const timer = setTimeout(() => setImmediate(() => {
      if (settled) return;
      finish({ ok: false, retryable: true, message: `TimeoutError: the request took longer than ${settings.timeoutMs / 1000}s` });
      cancel();
    }), settings.timeoutMs);
  });
}
