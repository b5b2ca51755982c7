// The uWebSockets.js edge: reads method, path, headers and a size-capped body,
// dispatches to a plain handler, and writes the response corked. Everything
// uWS-specific lives here.
import uWS from 'uWebSockets.js';
import type { HttpRequest, HttpResponse, ResponseStream, Route } from './types.js';
import type { Router } from './router.js';
import { errorResponse } from './reply.js';
import { errors } from '../errors.js';
import { corsHeaders, preflightHeaders } from './cors.js';
import { portRefusal } from './port.js';
import type { Logger } from '../logger.js';

export interface RequestObserver {
  (route: string, method: string, status: number): void;
}

export interface HttpServerOptions {
  router: Router;
  log: Logger;
  observe: RequestObserver;
}

export interface HttpServer {
  listen(host: string, port: number): Promise<number>;
  close(): void;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 202: '202 Accepted', 204: '204 No Content', 304: '304 Not Modified',
  400: '400 Bad Request', 401: '401 Unauthorized', 402: '402 Payment Required', 403: '403 Forbidden',
  404: '404 Not Found', 405: '405 Method Not Allowed', 408: '408 Request Timeout', 413: '413 Payload Too Large',
  429: '429 Too Many Requests', 500: '500 Internal Server Error', 503: '503 Service Unavailable',
};
const statusLine = (s: number) => STATUS_TEXT[s] ?? `${s} Status`;

const textDecoder = new TextDecoder();

function clientIp(res: uWS.HttpResponse, headers: Record<string, string>): string {
  const fwd = headers['x-forwarded-for'];
  if (fwd) {
    const first = fwd.split(',')[0].trim();
    if (first) return first;
  }
  return textDecoder.decode(res.getRemoteAddressAsText());
}

export function createHttpServer(opts: HttpServerOptions): HttpServer {
  const { router, log, observe } = opts;
  const app = uWS.App();
  let listenSocket: uWS.us_listen_socket | null = null;

  function write(res: uWS.HttpResponse, state: RequestState, response: HttpResponse,
    cors: Record<string, string> | null, close = false) {
    if (state.aborted || state.done) return;
    state.done = true;
    if (response.stream) {
      openStream(res, state, response, cors);
      return;
    }
    corked.res = res;
    corked.response = response;
    corked.cors = cors;
    corked.close = close;
    res.cork(writeCorked);
  }

  app.any('/*', (res, req) => {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    collecting = headers;
    req.forEach(collectHeader);
    const state: RequestState = { aborted: false, done: false, onAbort: null };
    res.onAborted(() => { state.aborted = true; state.onAbort?.(); });
    const cors = headers.origin !== undefined ? corsHeaders(headers) : null;

    if (method === 'OPTIONS') {
      observe('preflight', method, 200);
      write(res, state, { status: 200, headers: preflightHeaders(headers), body: null }, null);
      return;
    }

    const { route, params, pathExists } = router.match(method, path);
    if (!route) {
      const e = pathExists ? errors.methodNotAllowed(method) : errors.notFound();
      observe('unmatched', method, e.status);
      write(res, state, errorResponse(e, log), cors);
      return;
    }

    const contentLength = Number(headers['content-length'] ?? 0);
    if (contentLength > route.bodyLimit && !closeAfter(headers)) {
      // Answered before the body arrives; the rest of it is read and dropped (onData kept:
      // data uWS drops by itself after an answer does not count as activity, and its idle
      // timeout would close the connection under a slow client still writing). Past the
      // discard bound the connection is closed instead, and a client still writing may
      // see a reset rather than this answer: such a body is no mistake.
      const tooMuch = contentLength - route.bodyLimit > DISCARD_BYTES;
      if (!tooMuch) res.onData(ignore);
      observe(route.pattern, method, 413);
      write(res, state, errorResponse(errors.tooLarge(), log), cors, tooMuch);
      return;
    }
    if (contentLength - route.bodyLimit > DISCARD_BYTES) {
      observe(route.pattern, method, 413);
      write(res, state, errorResponse(errors.tooLarge(), log), cors, true);
      return;
    }

    const ip = clientIp(res, headers);
    const request: HttpRequest = {
      method, path, rawQuery, query: rawQuery ? new URLSearchParams(rawQuery) : EMPTY_QUERY, headers, ip, body: EMPTY_BODY, params,
    };

    const bodyless = contentLength === 0 && headers['transfer-encoding'] === undefined;
    if (bodyless || (contentLength <= route.bodyLimit && (method === 'GET' || method === 'HEAD'))) {
      run(route, request, res, state, cors);
      return;
    }
    readBody(res, route.bodyLimit, contentLength, (body, discardedTooMuch) => {
      if (body === null) {
        observe(route.pattern, method, 413);
        write(res, state, errorResponse(errors.tooLarge(), log), cors, discardedTooMuch);
        return;
      }
      request.body = body;
      run(route, request, res, state, cors);
    });
  });

  function run(route: Route, request: HttpRequest, res: uWS.HttpResponse, state: RequestState, cors: Record<string, string> | null) {
    let result: HttpResponse | Promise<HttpResponse>;
    try {
      result = route.handler(request);
    } catch (err) {
      result = errorResponse(err, log);
    }
    if (result instanceof Promise) {
      result.then(
        (r) => { observe(route.pattern, request.method, r.status); write(res, state, r, cors); },
        (err) => {
          const r = errorResponse(err, log);
          observe(route.pattern, request.method, r.status);
          write(res, state, r, cors);
        },
      );
    } else {
      observe(route.pattern, request.method, result.status);
      write(res, state, result, cors);
    }
  }

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        // Exclusive: without it Linux lets a second server bind the same port (SO_REUSEPORT)
        // and the kernel splits connections between the two.
        listenExclusive(app, host, port, (socket) => {
          if (!socket) return reject(new Error(portRefusal(host, port)));
          listenSocket = socket;
          resolve(uWS.us_socket_local_port(socket));
        });
      });
    },
    close() {
      if (listenSocket) uWS.us_listen_socket_close(listenSocket);
      listenSocket = null;
    },
  };
}

// uWS.js takes (host, port, options, handler), though its typings offer options only
// without a host; 1 is LIBUS_LISTEN_EXCLUSIVE_PORT.
type ListenWithOptions = (host: string, port: number, options: number, handler: (socket: uWS.us_listen_socket | false) => void) => unknown;
function listenExclusive(app: uWS.TemplatedApp, host: string, port: number, handler: (socket: uWS.us_listen_socket | false) => void): void {
  (app.listen as unknown as ListenWithOptions).call(app, host, port, 1, handler);
}

interface RequestState {
  aborted: boolean;
  done: boolean;
  // What a streamed response does when the client goes away.
  onAbort: (() => void) | null;
}

function writeHead(res: uWS.HttpResponse, response: HttpResponse, cors: Record<string, string> | null): void {
  res.writeStatus(statusLine(response.status));
  if (cors) for (const k in cors) res.writeHeader(k, cors[k]);
  const h = response.headers;
  if (h) for (const k in h) res.writeHeader(k, h[k]);
}

// The response being written inside res.cork: cork runs its callback at once, so one
// module-level slot and one function serve every request without a closure each.
const corked: { res: uWS.HttpResponse | null; response: HttpResponse | null; cors: Record<string, string> | null; close: boolean } = {
  res: null, response: null, cors: null, close: false,
};

function writeCorked(): void {
  const { res, response, cors, close } = corked;
  corked.res = null;
  corked.response = null;
  corked.cors = null;
  writeHead(res!, response!, cors);
  res!.end(response!.body ?? undefined, close);
}

// The status and headers now, the body as the handler's stream writes it (uWS writes each
// chunk with chunked transfer encoding), until it ends or the client leaves.
function openStream(res: uWS.HttpResponse, state: RequestState, response: HttpResponse, cors: Record<string, string> | null): void {
  let closed = false;
  const closers: (() => void)[] = [];
  const finish = () => {
    if (closed) return;
    closed = true;
    for (const fn of closers) fn();
  };
  state.onAbort = finish;
  res.cork(() => {
    writeHead(res, response, cors);
    // Sends the head at once: a client waits for it before it reads any event.
    res.write('');
  });
  const out: ResponseStream = {
    write(chunk) {
      if (closed || state.aborted) return false;
      res.cork(() => { res.write(chunk); });
      return true;
    },
    end() {
      if (closed || state.aborted) return;
      res.cork(() => { res.end(); });
      finish();
    },
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
  response.stream!(out);
}

// req.forEach's callback: uWS calls it at once, for each header, so one module-level
// function filling the request's object serves every request without a closure each.
let collecting: Record<string, string> = {};
function collectHeader(k: string, v: string): void {
  collecting[k] = v;
}

const EMPTY_BODY = Buffer.alloc(0);
// Shared by every request without a query string; handlers treat `query` as read-only.
const EMPTY_QUERY = new URLSearchParams();

// A refused body is still read and thrown away, up to this many bytes past the route's
// cap, so the client can read its 413 (posthog-node halves its batch on 413 but retries
// the same batch after a connection reset). Beyond it the connection is closed.
const DISCARD_BYTES = 64 * 1024 * 1024;

const ignore = () => {};

// A request that asked for its connection to be closed after the answer (HTTP/1.1's
// `Connection: close`, what Node's http client sends without keep-alive): uWS closes it as
// soon as the answer is written, and a close with the client's data unread is a reset
// that loses the answer the client had not read yet (EPIPE in Node's http client and in
// undici). Its refused body is read to the end first (readBody), then answered.
function closeAfter(headers: Record<string, string>): boolean {
  const c = headers.connection;
  return c !== undefined && /(^|,)\s*close\s*(,|$)/i.test(c);
}

// Collects the body in one buffer when Content-Length is known, else in chunks. Once the
// cap is passed (or when the declared length is past it) nothing more is kept: the rest is
// read and dropped, and `done(null, …)` comes at its end, or as soon as DISCARD_BYTES more
// have arrived (then `discardedTooMuch` says to close the connection).
function readBody(res: uWS.HttpResponse, limit: number, contentLength: number,
  done: (body: Buffer | null, discardedTooMuch: boolean) => void) {
  let refused = contentLength > limit;
  let buffer: Buffer | null = contentLength > 0 && !refused ? Buffer.allocUnsafe(contentLength) : null;
  let chunks: Buffer[] | null = buffer || refused ? null : [];
  let size = 0;
  let finished = false;
  res.onData((chunk, isLast) => {
    if (finished) return;
    const n = chunk.byteLength;
    size += n;
    if (!refused && (size > limit || (buffer && size > buffer.length))) {
      refused = true;
      buffer = null;
      chunks = null;
    }
    if (refused) {
      if (isLast || size - limit > DISCARD_BYTES) {
        finished = true;
        done(null, !isLast);
      }
      return;
    }
    if (buffer) Buffer.from(chunk).copy(buffer, size - n);
    else chunks!.push(Buffer.from(chunk.slice(0)));
    if (isLast) {
      finished = true;
      done(buffer ? buffer.subarray(0, size) : Buffer.concat(chunks!, size), false);
    }
  });
}
