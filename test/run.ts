// Runs the compiled test files in a pool of child processes (test/run-file.ts, one file
// per child) and ends with the `N passed, N failed` line CI reads. A skipped test counts
// as a failure (nothing may be silently skipped), and so do a file that finds no tests, a
// file that throws while loading and a file that runs past its timeout (it is killed).
//
//   node dist/test/run.js [filter ...] [--jobs N] [--timeout SECONDS] [--write-timings]
//
// filter: substrings of the paths to run (files or folders; a file runs if any matches). --jobs: files at once
// (default 4: on two cores, a file waiting on a server or a child keeps the cores busy
// with another). --timeout: how long one file may run (default 180 s). --write-timings:
// record each file's duration in test/timings.json, which orders the next runs, slowest
// first, so the pool's last files end together rather than one long file at the end.
// TEST_JOBS and TEST_TIMEOUT_S in the environment set the same as the flags.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const CHILD = join(here, 'run-file.js');
// In the source tree (dist/test/ is two levels below the repository root).
const TIMINGS = join(here, '../../test/timings.json');
// A file not in test/timings.json yet is assumed this slow (seconds).
const UNKNOWN_FILE_S = 10;
const TAIL_LINES = 40;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { jobs: { type: 'string' }, timeout: { type: 'string' }, 'write-timings': { type: 'boolean' } },
});
const jobs = Math.max(1, Number(values.jobs ?? process.env.TEST_JOBS ?? 4) || 4);
const timeoutMs = 1000 * Math.max(1, Number(values.timeout ?? process.env.TEST_TIMEOUT_S ?? 180) || 180);
const filters = positionals;

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.js')) out.push(full);
  }
  return out;
}

function readTimings(): Record<string, number> {
  if (!existsSync(TIMINGS)) return {};
  return JSON.parse(readFileSync(TIMINGS, 'utf8')) as Record<string, number>;
}

interface FileResult {
  name: string;
  passed: number;
  failed: number;
  ms: number;
  // The CPU time of the file's process and of the children it reaped, when it printed it.
  cpuMs: number;
  // Why the file failed as a whole, when it did.
  problem: string | null;
  // The last lines a failing file printed, repeated at the end of the run: CI shows the
  // end of a long output, and a file that died early had printed its reason far above.
  tail: string;
}

// uvu's own summary, the last one the file printed.
function counts(output: string): { total: number; passed: number; skipped: number } | null {
  // eslint-disable-next-line no-control-regex
  const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
  const total = [...plain.matchAll(/Total:\s+(\d+)/g)].at(-1);
  const passed = [...plain.matchAll(/Passed:\s+(\d+)/g)].at(-1);
  const skipped = [...plain.matchAll(/Skipped:\s+(\d+)/g)].at(-1);
  if (!total || !passed || !skipped) return null;
  return { total: Number(total[1]), passed: Number(passed[1]), skipped: Number(skipped[1]) };
}

// Kills what is left of a child's process group (servers a test started and left).
function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Nothing left.
  }
}

// The process groups of the files running now: an interrupted run (Ctrl-C reaches only
// this process's group) ends them too.
const running = new Set<number>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const pid of running) killGroup(pid);
    process.exit(1);
  });
}

function runFile(file: string): Promise<FileResult> {
  const name = relative(here, file);
  const started = Date.now();
  // Its own process group, so a timeout kills the servers it started along with it.
  const child = spawn(process.execPath, [CHILD, file], {
    detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    // LIBC_FATAL_STDERR_: glibc's own fatal messages (a heap corruption before an abort)
    // go to the terminal, which the file's process has none of, unless told otherwise.
    env: { ...process.env, LIBC_FATAL_STDERR_: '1', ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) },
  });
  running.add(child.pid!);
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; killGroup(child.pid!); }, timeoutMs);
  // Once the file's process is gone, whatever it left running goes too (and with it any
  // pipe a leftover held open, which would otherwise hold back 'close').
  child.once('exit', () => { killGroup(child.pid!); running.delete(child.pid!); });
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const ms = Date.now() - started;
      const seen = timedOut ? null : counts(output);
      let problem: string | null = null;
      if (timedOut) problem = `killed after ${timeoutMs / 1000} s (per-file timeout)`;
      else if (!seen) problem = `ended without uvu's summary (exit ${code ?? signal})`;
      else if (seen.total === 0) problem = 'no tests found';
      const passed = seen?.passed ?? 0;
      const failed = seen && seen.total > 0 ? seen.total - seen.passed + seen.skipped : 1;
      const cpuMs = Number(/^cpu-ms: (\d+)$/m.exec(output)?.[1] ?? 0);
      const shown = output.replace(/\ncpu-ms: \d+\n?/, '\n').trimEnd();
      const block = `\n── ${name} (${(ms / 1000).toFixed(1)} s, CPU ${(cpuMs / 1000).toFixed(1)} s)${problem ? `: ${problem}` : ''}\n${shown}\n`;
      process.stdout.write(block);
      resolve({ name, passed, failed, ms, cpuMs, problem, tail: failed > 0 ? shown.split('\n').slice(-TAIL_LINES).join('\n') : '' });
    });
  });
}

const files = findTests(here).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
const timings = readTimings();
const expected = (f: string) => timings[relative(here, f)] ?? UNKNOWN_FILE_S * 1000;
files.sort((a, b) => expected(b) - expected(a));

const started = Date.now();
const results: FileResult[] = [];
let next = 0;
async function worker(): Promise<void> {
  while (next < files.length) results.push(await runFile(files[next++]));
}
await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const failing = results.filter((r) => r.failed > 0).sort((a, b) => a.name.localeCompare(b.name));
const cpuS = results.reduce((n, r) => n + r.cpuMs, 0) / 1000;
console.log(`\n${results.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s, ${jobs} at a time; CPU ${cpuS.toFixed(0)} s in the files' processes and the children they reaped`);
if (failing.length > 0) {
  console.log('failing files:');
  for (const r of failing) console.log(`  ${r.name}: ${r.problem ?? `${r.failed} failed`}`);
  for (const r of failing) console.log(`\n── the end of ${r.name}'s output:\n${r.tail || '(nothing printed)'}`);
}
if (values['write-timings']) {
  for (const r of results) timings[r.name] = Math.round(r.ms / 100) * 100;
  const sorted = Object.fromEntries(Object.entries(timings).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(TIMINGS, JSON.stringify(sorted, null, 2) + '\n');
}
if (files.length === 0) console.log('no tests found');
process.exitCode = files.length === 0 || failed > 0 ? 1 : 0;
console.log(`${passed} passed, ${files.length === 0 ? 1 : failed} failed`);
