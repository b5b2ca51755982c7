// HTTP/1.1 exchanges over kept-alive sockets, one request at a time per socket, for the
// destinations' fetches (./http-fetch.ts). node:http's ClientRequest and IncomingMessage
// (streams, events, an agent's bookkeeping) cost ~60 µs of CPU per request on the bench
// machine; writing the request in one piece and reading the answer here costs ~12 µs
// (bench/RESULTS.md, issue 26), and a delivery is little more than its request. What
// node:http did for these requests is done here: headers validated as it validates them,
// framing headers (Content-Length, Transfer-Encoding, Connection) set here only, answers
// read by Content-Length, chunked or until the socket closes, interim 1xx answers skipped.
import net from 'node:net';
import tls from 'node:tls';
import { validateHeaderName, validateHeaderValue } from 'node:http';

// Where an origin's sockets connect, and how each is checked before a byte is sent.
export interface Origin {
  secure: boolean;
  // To connect to (an address literal without brackets, or a name for `lookup`).
  host: string;
  port: number;
  // The Host header.
  authority: string;
  lookup: net.LookupFunction;
  // Why the address a socket connected to is refused, or null.
  refused(address: string | undefined): Error | null;
}

export interface Exchange {
  method: string;
  // Path and query, as sent.
  path: string;
  headers: Record<string, string>;
  body: string | null;
  maxResponseBytes: number;
}

export type ExchangeResult =
  // retryAfter: the answer's Retry-After header as given, when it has one.
  | { ok: true; status: number; body: Buffer; retryAfter?: string }
  | { ok: false; error: Error }
  | { ok: false; tooLarge: true };

// Sockets per origin (node:http's agent allowed as many); requests beyond wait their turn.
const MAX_SOCKETS = 256;
// An idle socket older than this is closed rather than used: servers close idle
// connections after a few seconds (Node's after 5), and a request sent as one closes is lost.
const IDLE_MS = 4000;
// node:http's limit on an answer's status line and headers.
const MAX_HEAD_BYTES = 16 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Methods whose requests carry no body when none is given (node:http's list).
const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT']);
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'host']);

const enum Phase { Head, Length, Chunked, ChunkData, Trailers, UntilClose }

// Told the answer of an exchange, with the context its caller gave: one function for all of
// a caller's exchanges, rather than a closure made per request.
export type Done<C> = (result: ExchangeResult, context: C) => void;

export interface Pending {
  exchange: Exchange;
  // The request as sent (its head, and its body).
  text: string;
  done: Done<any>;
  context: unknown;
  // Set once the request is given up (its time ran out): its socket is closed.
  cancelled: boolean;
  conn: Conn | null;
}

interface Conn {
  socket: net.Socket;
  pool: Pool;
  ready: boolean;
  current: Pending | null;
  idleSince: number;
  // Answer state.
  buffered: Buffer | null;
  phase: Phase;
  status: number;
  retryAfter: string | null;
  remaining: number;
  chunks: Buffer[];
  size: number;
  keepAlive: boolean;
}

export interface Pool {
  origin: Origin;
  idle: Conn[];
  sockets: number;
  waiting: Pending[];
}

export function createPool(origin: Origin): Pool {
  return { origin, idle: [], sockets: 0, waiting: [] };
}

// The request's head, or the error node:http would have thrown for it.
function head(origin: Origin, ex: Exchange): string {
  if (!TOKEN.test(ex.method)) throw Object.assign(new TypeError(`Method must be a valid HTTP token ["${ex.method}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
  let text = `${ex.method} ${ex.path} HTTP/1.1\r\n`;
  let host: string | null = null;
  for (const name in ex.headers) {
    const value = ex.headers[name];
    validateHeaderName(name);
    validateHeaderValue(name, value);
    const lower = name.toLowerCase();
    if (lower === 'host') host = value;
    if (FRAMING.has(lower)) continue;
    text += `${name}: ${value}\r\n`;
  }
  text += `Host: ${host ?? origin.authority}\r\nConnection: keep-alive\r\n`;
  if (ex.body !== null) text += `Content-Length: ${Buffer.byteLength(ex.body)}\r\n`;
  else if (!BODILESS.has(ex.method)) text += 'Content-Length: 0\r\n';
  return text + '\r\n';
}

// Sends the request on a socket of the pool and calls `done` once with its answer and
// `context`. The head is built first, so a request node:http would refuse throws here, before
// anything is sent. What it returns is what `cancel` takes to give the request up.
export function exchange<C>(pool: Pool, ex: Exchange, done: Done<C>, context: C): Pending {
  const text = head(pool.origin, ex);
  const p: Pending = { exchange: ex, text: ex.body === null ? text : text + ex.body, done, context, cancelled: false, conn: null };
  const now = Date.now();
  let conn: Conn | undefined;
  while ((conn = pool.idle.pop()) !== undefined) {
    if (now - conn.idleSince < IDLE_MS) break;
    conn.socket.destroy();
  }
  if (conn !== undefined) send(conn, p);
  else if (pool.sockets < MAX_SOCKETS) connect(pool, p);
  else pool.waiting.push(p);
  return p;
}

/** Gives the request up: its socket is closed (its `done` is not called). */
export function cancel(pool: Pool, p: Pending): void {
  if (p.cancelled) return;
  p.cancelled = true;
  if (p.conn !== null) p.conn.socket.destroy();
  const at = pool.waiting.indexOf(p);
  if (at >= 0) pool.waiting.splice(at, 1);
}

// Where every plain socket's reads land (net's onread): a read is taken whole before the next
// is made, and what an answer keeps of it is copied (keep), so no buffer is made per read and
// the answer skips the stream's 'data' machinery.
const READS = Buffer.allocUnsafe(64 * 1024);

function connect(pool: Pool, p: Pending): void {
  const { origin } = pool;
  const socket = origin.secure
    ? tls.connect({ host: origin.host, port: origin.port, servername: net.isIP(origin.host) === 0 ? origin.host : undefined, lookup: origin.lookup, ALPNProtocols: ['http/1.1'] })
    : net.connect({ host: origin.host, port: origin.port, lookup: origin.lookup, onread: { buffer: READS, callback: (n: number) => {
      read(conn, READS.subarray(0, n), true);
      // Not false: false would pause the socket.
      return true;
    } } });
  socket.setNoDelay(true);
  pool.sockets++;
  const conn: Conn = {
    socket, pool, ready: false, current: p, idleSince: 0,
    buffered: null, phase: Phase.Head, status: 0, retryAfter: null, remaining: 0, chunks: [], size: 0, keepAlive: true,
  };
  p.conn = conn;
  socket.once(origin.secure ? 'secureConnect' : 'connect', () => {
    const refused = origin.refused(socket.remoteAddress);
    if (refused !== null) return fail(conn, refused);
    conn.ready = true;
    if (conn.current !== null) write(conn, conn.current);
  });
  if (origin.secure) socket.on('data', (data: Buffer) => read(conn, data, false));
  socket.on('error', (err) => fail(conn, err));
  socket.on('close', () => closed(conn));
}

function send(conn: Conn, p: Pending): void {
  conn.current = p;
  p.conn = conn;
  conn.socket.ref();
  if (conn.ready) write(conn, p);
}

function write(conn: Conn, p: Pending): void {
  conn.phase = Phase.Head;
  conn.chunks = [];
  conn.size = 0;
  conn.keepAlive = true;
  conn.socket.write(p.text);
}

// The socket is free again: the next waiting request, or idle.
function release(conn: Conn): void {
  const { pool } = conn;
  conn.current = null;
  const next = pool.waiting.shift();
  if (next !== undefined) return send(conn, next);
  conn.idleSince = Date.now();
  conn.socket.unref();
  pool.idle.push(conn);
}

function settle(conn: Conn, result: ExchangeResult): void {
  const p = conn.current;
  if (p === null) return;
  conn.current = null;
  p.conn = null;
  if (!p.cancelled) p.done(result, p.context);
}

function fail(conn: Conn, error: Error): void {
  settle(conn, { ok: false, error });
  conn.socket.destroy();
}

function closed(conn: Conn): void {
  const { pool } = conn;
  pool.sockets--;
  const at = pool.idle.indexOf(conn);
  if (at >= 0) pool.idle.splice(at, 1);
  if (conn.current !== null) {
    if (conn.phase === Phase.UntilClose) complete(conn, false);
    else settle(conn, { ok: false, error: Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }) });
  }
  // A request waiting for a socket gets the room this one leaves.
  const next = pool.waiting.shift();
  if (next !== undefined) connect(pool, next);
}

function complete(conn: Conn, reusable: boolean): void {
  const body = conn.chunks.length === 1 ? conn.chunks[0] : Buffer.concat(conn.chunks);
  conn.chunks = [];
  settle(conn, conn.retryAfter === null ? { ok: true, status: conn.status, body } : { ok: true, status: conn.status, body, retryAfter: conn.retryAfter });
  if (reusable && conn.keepAlive && conn.buffered === null && !conn.socket.destroyed) release(conn);
  else conn.socket.destroy();
}

// What an answer keeps of a read: a copy when the read's bytes are the shared buffer's.
const keep = (part: Buffer, shared: boolean) => (shared ? Buffer.from(part) : part);

function take(conn: Conn, part: Buffer, shared: boolean): boolean {
  conn.size += part.length;
  if (conn.size > conn.current!.exchange.maxResponseBytes) {
    settle(conn, { ok: false, tooLarge: true });
    conn.socket.destroy();
    return false;
  }
  if (part.length > 0) conn.chunks.push(keep(part, shared));
  return true;
}

function protocolError(conn: Conn, what: string): void {
  fail(conn, Object.assign(new Error(`Parse Error: ${what}`), { code: 'HPE_INVALID' }));
}

// Reads what came; an answer complete is settled, the socket released or closed.
// `shared`: `data` lies in READS, to be copied where kept.
function read(conn: Conn, data: Buffer, shared: boolean): void {
  if (conn.current === null) {
    // Nothing was asked: a server talking out of turn is not talked to again.
    conn.socket.destroy();
    return;
  }
  let buf = data;
  if (conn.buffered !== null) {
    buf = Buffer.concat([conn.buffered, data]);
    shared = false;
  }
  conn.buffered = null;
  for (;;) {
    switch (conn.phase) {
      case Phase.Head: {
        const end = buf.indexOf(HEAD_END);
        if (end < 0) {
          if (buf.length > MAX_HEAD_BYTES) return protocolError(conn, 'Header overflow');
          conn.buffered = keep(buf, shared);
          return;
        }
        if (!answerHead(conn, buf, end)) return;
        buf = buf.subarray(end + 4);
        continue;
      }
      case Phase.Length: {
        const part = buf.length > conn.remaining ? buf.subarray(0, conn.remaining) : buf;
        conn.remaining -= part.length;
        if (!take(conn, part, shared)) return;
        if (conn.remaining > 0) return;
        if (part.length < buf.length) conn.buffered = keep(buf.subarray(part.length), shared);
        return complete(conn, true);
      }
      case Phase.Chunked: {
        const end = buf.indexOf(CRLF);
        if (end < 0) {
          if (buf.length > 1024) return protocolError(conn, 'Invalid chunk size');
          conn.buffered = buf.length > 0 ? keep(buf, shared) : null;
          return;
        }
        const size = parseInt(buf.toString('latin1', 0, end).split(';')[0].trim(), 16);
        if (!Number.isFinite(size) || size < 0) return protocolError(conn, 'Invalid chunk size');
        buf = buf.subarray(end + 2);
        if (size === 0) {
          conn.phase = Phase.Trailers;
        } else {
          conn.remaining = size;
          conn.phase = Phase.ChunkData;
        }
        continue;
      }
      case Phase.ChunkData: {
        // The chunk's bytes, then its CRLF.
        if (conn.remaining > 0) {
          const part = buf.length > conn.remaining ? buf.subarray(0, conn.remaining) : buf;
          conn.remaining -= part.length;
          if (!take(conn, part, shared)) return;
          buf = buf.subarray(part.length);
          if (conn.remaining > 0) return;
        }
        if (buf.length < 2) {
          conn.buffered = buf.length > 0 ? keep(buf, shared) : null;
          return;
        }
        buf = buf.subarray(2);
        conn.phase = Phase.Chunked;
        continue;
      }
      case Phase.Trailers: {
        const end = buf.indexOf(CRLF);
        if (end < 0) {
          if (buf.length > MAX_HEAD_BYTES) return protocolError(conn, 'Header overflow');
          conn.buffered = buf.length > 0 ? keep(buf, shared) : null;
          return;
        }
        buf = buf.subarray(end + 2);
        if (end > 0) continue;
        if (buf.length > 0) conn.buffered = keep(buf, shared);
        return complete(conn, true);
      }
      case Phase.UntilClose:
        take(conn, buf, shared);
        return;
    }
  }
}

// Bytes JS's trim() drops that a latin1 header line can hold (as node:http's answer text was read).
const isTrimmed = (b: number) => b === 0x20 || (b >= 0x09 && b <= 0x0d) || b === 0xa0;

// Whether buf[from, to) is `name` (lower case ASCII) whatever its letters' case.
function sameName(buf: Buffer, from: number, to: number, name: string): boolean {
  if (to - from !== name.length) return false;
  for (let i = 0; i < name.length; i++) {
    const b = buf[from + i];
    if ((b >= 0x41 && b <= 0x5a ? b + 0x20 : b) !== name.charCodeAt(i)) return false;
  }
  return true;
}

// Where the CRLF ending the line that starts at `from` lies (`end` when none does before it).
function lineEnd(buf: Buffer, from: number, end: number): number {
  for (let i = from; i + 1 < end; i++) if (buf[i] === 0x0d && buf[i + 1] === 0x0a) return i;
  return end;
}

// A Content-Length's value as Number() reads its text: plain digits read here, anything else
// (signs, exponents, an empty value) by Number() itself.
function lengthValue(buf: Buffer, from: number, to: number): number {
  if (to > from && to - from <= 15) {
    let n = 0;
    for (let i = from; i < to; i++) {
      const d = buf[i] - 0x30;
      if (d < 0 || d > 9) return Number(buf.toString('latin1', from, to));
      n = n * 10 + d;
    }
    return n;
  }
  return Number(buf.toString('latin1', from, to));
}

// Takes an answer's status line and headers (buf[0, end): the head without its blank line),
// read in place: only the values of the four headers it needs become text. False when the
// socket was failed.
function answerHead(conn: Conn, buf: Buffer, end: number): boolean {
  const first = lineEnd(buf, 0, end);
  // As /^HTTP\/1\.([01]) (\d{3})(?: |$)/ on the status line.
  const minor = buf[7] - 0x30;
  const valid = first >= 12 && buf.toString('latin1', 0, 7) === 'HTTP/1.' && (minor === 0 || minor === 1) && buf[8] === 0x20 &&
    isDigit(buf[9]) && isDigit(buf[10]) && isDigit(buf[11]) && (first === 12 || buf[12] === 0x20);
  if (!valid) {
    protocolError(conn, 'Invalid status line');
    return false;
  }
  const code = (buf[9] - 0x30) * 100 + (buf[10] - 0x30) * 10 + (buf[11] - 0x30);
  let length: number | null = null;
  let chunked = false;
  let connection = '';
  let retryAfter: string | null = null;
  for (let from = first + 2; from <= end; ) {
    const to = lineEnd(buf, from, end);
    let colon = -1;
    for (let i = from; i < to; i++) {
      if (buf[i] === 0x3a) {
        colon = i;
        break;
      }
    }
    if (colon > from) {
      let nameFrom = from;
      let nameTo = colon;
      while (nameFrom < nameTo && isTrimmed(buf[nameFrom])) nameFrom++;
      while (nameTo > nameFrom && isTrimmed(buf[nameTo - 1])) nameTo--;
      let valueFrom = colon + 1;
      let valueTo = to;
      while (valueFrom < valueTo && isTrimmed(buf[valueFrom])) valueFrom++;
      while (valueTo > valueFrom && isTrimmed(buf[valueTo - 1])) valueTo--;
      if (sameName(buf, nameFrom, nameTo, 'content-length')) {
        const n = lengthValue(buf, valueFrom, valueTo);
        if (!Number.isSafeInteger(n) || n < 0 || (length !== null && length !== n)) {
          protocolError(conn, 'Invalid Content-Length');
          return false;
        }
        length = n;
      } else if (sameName(buf, nameFrom, nameTo, 'transfer-encoding')) {
        chunked = /(?:^|,)\s*chunked\s*$/i.test(buf.toString('latin1', colon + 1, to));
      } else if (sameName(buf, nameFrom, nameTo, 'connection')) {
        connection = buf.toString('latin1', valueFrom, valueTo).toLowerCase();
      } else if (sameName(buf, nameFrom, nameTo, 'retry-after')) {
        retryAfter = buf.toString('latin1', valueFrom, valueTo);
      }
    }
    from = to + 2;
  }
  // An interim answer (100 Continue, 103 Early Hints): the real one follows.
  if (code >= 100 && code < 200 && code !== 101) return true;
  conn.status = code;
  conn.retryAfter = retryAfter;
  conn.keepAlive = minor === 1 ? !connection.includes('close') : connection.includes('keep-alive');
  const method = conn.current!.exchange.method;
  if (method === 'HEAD' || code === 204 || code === 304 || code === 101) {
    conn.phase = Phase.Length;
    conn.remaining = 0;
    if (code === 101) conn.keepAlive = false;
  } else if (chunked) {
    conn.phase = Phase.Chunked;
  } else if (length !== null) {
    conn.phase = Phase.Length;
    conn.remaining = length;
  } else {
    conn.phase = Phase.UntilClose;
    conn.keepAlive = false;
  }
  return true;
}
