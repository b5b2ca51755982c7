// The real `hedgerow` CLI (its bin, src/cli/main.ts) as a child process: init a data dir,
// serve it, SIGKILL it, run its other commands.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { profiledEnv } from './profile.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));

export interface CliKeys { project_id: number; project_api_key: string; personal_api_key: string }

export function cliInit(dataDir: string, env: NodeJS.ProcessEnv = {}): CliKeys {
  const r = spawnSync(process.execPath, [MAIN, 'init', '--data', dataDir, '--json'], { encoding: 'utf8', env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Error(`init failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as CliKeys;
}

export interface CliServed { child: ChildProcess; url: string; warnings(): string[]; stderr(): string }

// Starts `serve` under the test profile (./profile.ts) and resolves with the port from its
// JSON "listening" log line. `warnings()` holds its last warning and error lines, for a
// failing test to show; `stderr()` the last 16,000 characters it wrote there. `spawned` is
// given the process at once, for a test that may stop it before it listens (its consumers
// start first).
export function cliServe(dataDir: string, env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000, spawned?: (child: ChildProcess) => void): Promise<CliServed> {
  const child = spawn(process.execPath, [MAIN, 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: profiledEnv(env) });
  spawned?.(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-16_000); });
  // A server that dies on its own, not through cliStop, says how and what it last wrote:
  // the failing test then shows a crash, not only its "fetch failed".
  child.once('exit', (code, signal) => {
    if (stopping.has(child)) return;
    console.error(`    serve (pid ${child.pid}) exited on its own: code ${code}, signal ${signal}\n${stderr}\n${warnings.join('\n')}`);
  });
  const warnings: string[] = [];
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!/"level":"(warn|error)"/.test(line)) continue;
      warnings.push(line.slice(0, 2000));
      if (warnings.length > 50) warnings.shift();
    }
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`serve did not listen in time: ${stderr}`)); }, timeoutMs);
    const exited = (code: number | null) => { clearTimeout(timer); reject(new Error(`serve exited with ${code}: ${stderr}`)); };
    child.once('exit', exited);
    let listening = false;
    child.stdout!.on('data', (d: Buffer) => {
      // Once listening, later output is not scanned again (and the 'exit' listeners
      // others add, cliStop's, are left alone).
      if (listening) return;
      buffered += d.toString();
      for (const line of buffered.split('\n')) {
        const parsed = (() => { try { return JSON.parse(line) as { msg?: string; port?: number }; } catch { return null; } })();
        if (parsed?.msg === 'listening' && parsed.port) {
          clearTimeout(timer);
          listening = true;
          buffered = '';
          child.removeListener('exit', exited);
          resolve({ child, url: `http://127.0.0.1:${parsed.port}`, warnings: () => warnings, stderr: () => stderr });
          return;
        }
      }
    });
  });
}

// The keys a first `serve` on an empty data dir prints in its banner (on stderr, which may
// come after the "listening" line on stdout): what `hedgerow init` would have made, without
// a process of its own for it.
export async function bannerKeys(served: CliServed, timeoutMs = 10_000): Promise<CliKeys> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = served.stderr();
    const id = /project id:\s+(\d+)/.exec(text);
    const project = /project API key:\s+(\S+)/.exec(text);
    const personal = /personal API key:\s+(\S+)/.exec(text);
    if (id && project && personal) return { project_id: Number(id[1]), project_api_key: project[1], personal_api_key: personal[1] };
    if (Date.now() > deadline) throw new Error(`no first-start banner on stderr: ${text}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const stopping = new WeakSet<ChildProcess>();

export function cliStop(child: ChildProcess, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  stopping.add(child);
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export interface CliRun { code: number; stdout: string; stderr: string }

// Runs one command on `dataDir` and resolves with its exit code and output.
export function cliRun(dataDir: string, ...args: string[]): Promise<CliRun> {
  return cliRunWith({}, dataDir, ...args);
}

// The same, with more environment (NATS_URL for a node of a cluster).
export function cliRunWith(env: NodeJS.ProcessEnv, dataDir: string, ...args: string[]): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args, '--data', dataDir], { env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

// Starts `aggregate` (an insights replica over NATS) under the test profile and resolves
// once it logs that it runs.
// Its output is kept in `output()` for a failing test to show.
export function cliAggregate(dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; output(): string }> {
  const child = spawn(process.execPath, [MAIN, 'aggregate', '--data', dataDir, '--log-level', 'info'],
    { stdio: ['ignore', 'pipe', 'pipe'], env: profiledEnv(env) });
  let output = '';
  child.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`aggregate did not start in time: ${output}`)); }, 30_000);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`aggregate exited with ${code}: ${output}`)); });
    child.stdout!.on('data', (d: Buffer) => {
      output += d.toString();
      if (output.includes('"msg":"aggregating"')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, output: () => output });
      }
    });
  });
}
