// One HTTP request for a hog function's fetch(), as PostHog's CDP makes it, with the
// guards user code needs: http and https only, no redirects followed, a time limit, a
// cap on the response size, and only addresses the policy allows (./address-policy.ts).
// The address is checked where it is used: the socket's own lookup hands the connection
// only allowed addresses (so a name that resolves to a private address, or re-resolves to
// one later, is refused), an address literal is checked before connecting, and the
// address actually connected to is checked again before a byte is sent.
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions, type LookupOneOptions } from 'node:dns';
import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { refusal, type AddressPolicy } from '../../net/address-policy.js';

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
  | { ok: true; status: number; body: unknown }
  | { ok: false; retryable: boolean; message: string };

// PostHog's CDP fetch timeout.
export const FETCH_TIMEOUT_MS = 10_000;
export const MAX_RESPONSE_BYTES = 1024 * 1024;

class RefusedAddressError extends Error {
  override name = 'SecureRequestError';
}

// Keep-alive agents: a destination's requests reuse connections (each was checked when made).
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 256 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 256 }),
};

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
// few URLs over and over): where to connect and how, or why not.
type Target =
  | { refused: FetchOutcome }
  | { refused: null; client: typeof http | typeof https; host: string; options: http.RequestOptions };

const MAX_TARGETS = 1024;
const targets = new WeakMap<AddressPolicy, Map<string, Target>>();

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
  return {
    refused: null, client: url.protocol === 'https:' ? https : http, host,
    options: { ...urlToHttpOptions(url), agent: agents[url.protocol], lookup: guardedLookup(policy, host) as unknown as typeof dnsLookup },
  };
}

// Sockets whose connected address was checked, and under which policy: a kept-alive socket
// is checked once per policy.
const checkedSockets = new WeakMap<Socket, AddressPolicy>();

export function httpFetch(request: FetchRequest, settings: FetchSettings): Promise<FetchOutcome> {
  const target = targetOf(request.url, settings.policy);
  if (target.refused !== null) return Promise.resolve(target.refused);
  const { client, host } = target;
  return new Promise<FetchOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: FetchOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const fail = (err: Error) => {
      const refused = err instanceof RefusedAddressError;
      finish({ ok: false, retryable: !refused, message: `${err.name}: ${err.message}` });
    };
    const req = client.request({
      ...target.options,
      method: request.method,
      headers: request.body === null ? request.headers : { ...request.headers, 'Content-Length': Buffer.byteLength(request.body) },
    });
    // When the timer comes due, the answer may be waiting unread in the socket: a thread kept
    // busy past the limit (a large batch's transaction) runs due timers before it reads
    // sockets again. setImmediate runs after that read, so an answer that came in time is
    // taken rather than failed as a timeout and sent again.
    const timer = setTimeout(() => setImmediate(() => {
      if (settled) return;
      finish({ ok: false, retryable: true, message: `TimeoutError: the request took longer than ${settings.timeoutMs / 1000}s` });
      req.destroy();
    }), settings.timeoutMs);
    req.on('socket', (socket: Socket) => {
      if (checkedSockets.get(socket) === settings.policy) return;
      const check = () => {
        const address = socket.remoteAddress;
        const why = address === undefined ? 'no address' : refusal(address, settings.policy, host);
        if (why !== null) req.destroy(new RefusedAddressError(`Refused to connect to ${address ?? host}: ${why}`));
        else checkedSockets.set(socket, settings.policy);
      };
      if (socket.connecting) socket.once('connect', check);
      else check();
    });
    req.on('error', fail);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > settings.maxResponseBytes) {
          finish({ ok: false, retryable: false, message: `ResponseTooLarge: the response is larger than ${settings.maxResponseBytes} bytes` });
          req.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', fail);
      res.on('end', () => finish({ ok: true, status: res.statusCode ?? 500, body: parseBody(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.end(request.body ?? undefined);
  });
}
