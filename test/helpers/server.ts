// Starts a real hedgerow server on an ephemeral port over a fresh temporary data
// dir, with keys minted the way `hedgerow init` does, and talks HTTP to it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { MODULES } from '../../src/main.js';
import { startServer, type RunningServer } from '../../src/node/serve.js';
import type { RegisteredConsumer } from '../../src/log/consumers/index.js';
import type { Config } from '../../src/settings.js';
import { parseCommandLine } from '../../src/cli/main.js';
import { createLogger } from '../../src/logger.js';
import { bootstrap } from '../../src/access/index.js';

export interface TestServer {
  url: string;
  projectKey: string;
  personalKey: string;
  projectId: number;
  server: RunningServer;
  dataDir: string;
  close(): Promise<void>;
}

export function tempDir(prefix = 'hedgerow-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testConfig(dataDir: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Readonly<Config> {
  return parseCommandLine(['serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'silent', ...extra], env, MODULES).config;
}

export interface TestServerOptions {
  extra?: string[];
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  // Log consumers run beside the modules' own.
  moreConsumers?: RegisteredConsumer[];
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = testConfig(dataDir, opts.extra, opts.env);
  // The first-start banner prints keys; tests mint their own.
  const server = await startServer(config, MODULES, { log: createLogger('silent'), out: discard(), moreConsumers: opts.moreConsumers });
  const boot = await bootstrap(server.tenancy);
  const { key } = await server.tenancy.createPersonalKey(boot.admin.id, ['*'], null, 'test');
  return {
    url: `http://127.0.0.1:${server.port}`,
    projectKey: boot.project.api_token,
    personalKey: key,
    projectId: boot.project.id,
    server,
    dataDir,
    async close() {
      await server.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// A stream that keeps nothing (the first start's banner: tests mint their own keys).
export const discard = () => new Writable({ write(_chunk, _encoding, done) { done(); } });

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await readBody(res), headers: res.headers };
}

export async function request(url: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await readBody(res), headers: res.headers };
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function bearer(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}` };
}

// Polls until `check` returns a truthy value (consumers apply the log asynchronously).
// The bound is generous: consumer threads start slowly on a loaded two-core machine, and
// a condition that holds returns at its first true poll whatever the bound.
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
