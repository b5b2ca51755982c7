// The capture ceiling (issue 2) and the pieces that measure it, shared by bench/capture
// and bench/persons: a server child pinned to CPU 0, wrk pinned to CPU 1 with one body
// per request, and the CPU time the server used, read from /proc. The ceiling itself is
// bench/ceiling-server.ts (bare uWebSockets.js that only reads and JSON-parses the body)
// driven with one ~250-byte event per request: its requests/s are events/s.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLine } from './child-line.js';
import { cpuOf, type CpuUse } from './proc.js';

export { cpuOf, type CpuUse };

export const root = fileURLToPath(new URL('../../', import.meta.url));

// A server started with `node args…` (in `cwd`) on CPU 0, once it prints {"msg":"listening","port":…}.
export async function startPinned(args: string[], cwd = root): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn('taskset', ['-c', '0', process.execPath, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', () => {});
  const { port } = await jsonLine(child, 'listening', 'server');
  return { child, port: port as number };
}

export interface WrkResult { rps: number; p50ms: number; p99ms: number; non2xx: number; requests: number; cpu: CpuUse }

// How wrk drives a target: seconds of unmeasured warm-up, seconds measured, connections.
export interface WrkOptions { warmup: number; duration: number; connections: number }

function toMs(v: string): number {
  const m = /([\d.]+)(us|ms|s)/.exec(v);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

// POSTs `body` to `url` from one wrk thread on CPU 1; `pid` is the server whose CPU is read.
// A Buffer body (gzip) is read by the script from a file: Lua strings take no JSON escapes.
export function wrk(url: string, body: string | Buffer, pid: number, opts: WrkOptions, headers: Record<string, string> = {}): WrkResult {
  const dir = mkdtempSync(join(tmpdir(), 'hedgerow-wrk-'));
  try {
    const script = join(dir, 'post.lua');
    let lua = 'wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n';
    if (typeof body === 'string') lua += `wrk.body = ${JSON.stringify(body)}\n`;
    else {
      writeFileSync(join(dir, 'body'), body);
      lua += `local f = io.open(${JSON.stringify(join(dir, 'body'))}, "rb")\nwrk.body = f:read("*a")\nf:close()\n`;
    }
    for (const [k, v] of Object.entries(headers)) lua += `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}\n`;
    writeFileSync(script, lua);
    const run = (seconds: number, latency: boolean) => execFileSync('taskset', ['-c', '1', 'wrk', '-t1', `-c${opts.connections}`, `-d${seconds}s`,
      ...(latency ? ['--latency'] : []), '-s', script, url], { encoding: 'utf8' });
    // Warm-up, not measured: JIT, connection set-up, the first log commits.
    if (opts.warmup > 0) run(opts.warmup, false);
    const before = cpuOf(pid);
    const out = run(opts.duration, true);
    const after = cpuOf(pid);
    return {
      rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]),
      requests: Number(/(\d+) requests in/.exec(out)?.[1]),
      p50ms: toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? ''),
      p99ms: toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? ''),
      non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
      cpu: { main: after.main - before.main, total: after.total - before.total },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The ~250-byte event of a capture request body (with its token when `token` is set).
export function captureEvent(token: string, i: number) {
  return {
    event: '$pageview', distinct_id: `user-${i}`, timestamp: new Date().toISOString(),
    properties: { $current_url: 'https://example.com/pricing?ref=newsletter', $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
    ...(token ? { api_key: token } : {}),
  };
}

export interface Ceiling extends WrkResult {
  // Bytes of the one-event body each request carries.
  bodyBytes: number;
}

// The ceiling, measured now: bench/ceiling-server on CPU 0 (it must be built into
// dist/), wrk on CPU 1, one event per request.
export async function measureCeiling(opts: WrkOptions): Promise<Ceiling> {
  const server = await startPinned(['dist/bench/ceiling-server.js', '0']);
  try {
    const body = JSON.stringify(captureEvent('phc_ceiling', 0));
    return { ...wrk(`http://127.0.0.1:${server.port}/i/v0/e/`, body, server.child.pid!, opts), bodyBytes: Buffer.byteLength(body) };
  } finally {
    server.child.kill('SIGKILL');
  }
}
