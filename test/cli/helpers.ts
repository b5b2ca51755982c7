// The CLI's bin run as a process, with an environment of only what a test gives it (so
// the runner's own HEDGEROW_* or NATS_URL do not reach it).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface Ran { code: number | null; stdout: string; stderr: string }

export function hedgerow(args: string[], env: NodeJS.ProcessEnv = {}, nodeArgs: string[] = []): Ran {
  // Bounded: a command line that started a server by mistake fails the test instead of hanging it.
  const r = spawnSync(process.execPath, [...nodeArgs, BIN, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, ...env }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
