// An open-loop HTTP/1.1 load generator: requests are due at a fixed rate whatever the
// server does, and each one's latency runs from when it was due (as wrk2 measures), so a
// stalled server shows up in the percentiles instead of slowing the offered load down
// (coordinated omission). Keep-alive connections, one request in flight on each; a
// request due while every connection is busy waits its turn, its wait counted.
//
// Why not autocannon: on one core of this machine it cannot offer 5,000 requests/s even
// to a bare uWS server (bench/decide.ts measures that too), and its histogram keeps whole
// milliseconds. This loop writes prebuilt request bytes and parses only the status line
// and Content-Length, so the load generator stays far from its own limit.
import { connect, type Socket } from 'node:net';

export interface FixedRateOptions {
  host: string;
  port: number;
  /** Complete HTTP/1.1 requests (keep-alive), sent round-robin. */
  requests: readonly Buffer[];
  rate: number;
  durationMs: number;
  connections: number;
  /** Sleep this many ms between checks for due requests instead of spinning (setImmediate):
   *  for a few hundred requests/s, where the generator's spinning would take a core the
   *  server needs. Requests are still timed from when they were due. */
  sleepMs?: number;
}

export interface FixedRateResult {
  offered: number;
  sent: number;
  completed: number;
  achieved: number;
  /** Sorted latencies in ms, from when each request was due. */
  latencies: Float64Array;
  /** Sorted service times in ms, from when each request was written. */
  serviceTimes: Float64Array;
  non2xx: number;
  errors: number;
  /** Requests still unanswered when the run ended. */
  unanswered: number;
}

/** An HTTP/1.1 POST request as bytes. */
export function postRequest(host: string, path: string, body: string | Buffer, contentType = 'application/json'): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  return Buffer.concat([
    Buffer.from(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: ${contentType}\r\nContent-Length: ${b.length}\r\nConnection: keep-alive\r\n\r\n`),
    b,
  ]);
}

interface Conn {
  socket: Socket;
  busy: boolean;
  due: number;
  written: number;
  buf: Buffer;
}

const HEADER_END = Buffer.from('\r\n\r\n');

function contentLength(head: string): number {
  const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  return m ? Number(m[1]) : 0;
}

export async function fixedRate(opts: FixedRateOptions): Promise<FixedRateResult> {
  const capacity = Math.ceil((opts.rate * opts.durationMs) / 1000) + 16;
  const latencies = new Float64Array(capacity);
  const service = new Float64Array(capacity);
  let completed = 0;
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let next = 0;
  const idle: Conn[] = [];
  const backlog: number[] = [];
  const conns: Conn[] = [];
  let running = true;

  function send(c: Conn, due: number) {
    c.busy = true;
    c.due = due;
    c.written = performance.now();
    c.socket.write(opts.requests[next++ % opts.requests.length]);
  }

  function onData(c: Conn, chunk: Buffer) {
    c.buf = c.buf.length === 0 ? chunk : Buffer.concat([c.buf, chunk]);
    for (;;) {
      const end = c.buf.indexOf(HEADER_END);
      if (end < 0) return;
      const head = c.buf.toString('latin1', 0, end);
      const total = end + 4 + contentLength(head);
      if (c.buf.length < total) return;
      const status = Number(head.slice(9, 12));
      c.buf = c.buf.subarray(total);
      const now = performance.now();
      if (status < 200 || status >= 300) non2xx++;
      if (completed < capacity) {
        latencies[completed] = now - c.due;
        service[completed] = now - c.written;
      }
      completed++;
      c.busy = false;
      if (!running) continue;
      const waiting = backlog.shift();
      if (waiting !== undefined) send(c, waiting);
      else idle.push(c);
    }
  }

  await Promise.all(Array.from({ length: opts.connections }, () => new Promise<void>((resolve, reject) => {
    const socket = connect({ host: opts.host, port: opts.port, noDelay: true }, () => resolve());
    const c: Conn = { socket, busy: false, due: 0, written: 0, buf: Buffer.alloc(0) };
    socket.on('data', (d) => onData(c, d));
    socket.on('error', (e) => { errors++; reject(e); });
    conns.push(c);
    idle.push(c);
  })));

  const start = performance.now();
  const interval = 1000 / opts.rate;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      const elapsed = now - start;
      if (elapsed >= opts.durationMs) {
        running = false;
        return resolve();
      }
      const due = Math.floor(elapsed / interval) + 1;
      while (sent < due) {
        const at = start + sent * interval;
        sent++;
        const c = idle.pop();
        if (c) send(c, at);
        else backlog.push(at);
      }
      if (opts.sleepMs === undefined) setImmediate(tick);
      else setTimeout(tick, opts.sleepMs);
    };
    tick();
  });
  // Let requests in flight finish (at most a second), then close.
  const deadline = performance.now() + 1000;
  while (conns.some((c) => c.busy) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  const unanswered = conns.filter((c) => c.busy).length + backlog.length;
  for (const c of conns) c.socket.destroy();

  const n = Math.min(completed, capacity);
  return {
    offered: opts.rate,
    sent,
    completed,
    achieved: completed / (opts.durationMs / 1000),
    latencies: latencies.slice(0, n).sort(),
    serviceTimes: service.slice(0, n).sort(),
    non2xx,
    errors,
    unanswered,
  };
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
