// A real `hedgerow serve` for the HTTP benches: its own process on its own data dir (made
// by `hedgerow init`, the embedded default), ready once /_readiness answers 200, with the
// calls benches make of it: the management API with the personal key, and /metrics read
// into numbers.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { jsonLine } from './child-line.js';
import { root } from './ceiling.js';
import { cliEntry } from './cli-entry.js';

export interface InitKeys { project_id: number; project_api_key: string; personal_api_key: string }

/** `hedgerow init` of a fresh data dir: the project and its keys. */
export function initDataDir(dataDir: string, checkout = root): InitKeys {
  return JSON.parse(execFileSync(process.execPath, [cliEntry(checkout), 'init', '--data', dataDir, '--json'], { cwd: checkout, encoding: 'utf8' }));
}

export interface ServeOptions {
  dataDir: string;
  // Added to this process's environment.
  env?: Record<string, string>;
  // Node options before the script (e.g. --cpu-prof).
  nodeArgs?: string[];
  // `serve` arguments after --port, --host and --data.
  args?: string[];
  // The built checkout to run (another worktree, for a same-run baseline); this one by default.
  checkout?: string;
  // A memory cgroup the server joins as soon as it is spawned (./memory-cgroup.ts).
  cgroup?: { join(pid: number): void };
}

export interface ServeChild {
  child: ChildProcess;
  pid: number;
  base: string;
  /** SIGTERM, and the exit awaited (a CPU profile is written then); SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startServe(opts: ServeOptions): Promise<ServeChild> {
  const checkout = opts.checkout ?? root;
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), cliEntry(checkout), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', opts.dataDir, ...(opts.args ?? [])], {
    cwd: checkout, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env },
  });
  child.stderr!.on('data', () => {});
  opts.cgroup?.join(child.pid!);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = (await jsonLine(child, 'listening', 'server')).port as number;
  const base = `http://127.0.0.1:${port}`;
  while ((await fetch(`${base}/_readiness`).then((r) => r.status, () => 0)) !== 200) await sleep(100);
  return {
    child, pid: child.pid!, base,
    async stop(graceMs = 60_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The management API with a personal key: JSON in and out, a status of 300 or more thrown. */
export function managementApi(base: string, personalKey: string) {
  const headers = { Authorization: `Bearer ${personalKey}`, 'Content-Type': 'application/json' };
  return async function api(method: string, path: string, body?: unknown): Promise<any> {
    const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** /metrics as numbers, by series as exposed (`name` or `name{label="v",…}`). */
export async function scrapeMetrics(base: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}
