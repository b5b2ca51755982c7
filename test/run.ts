// Runs the compiled test files in a pool of child processes and ends with the
// `N passed, N failed` line CI reads. Each child (test/run-host.ts) runs files one after
// another, so the service's modules load once per child rather than once per file; a child
// is replaced after a file that failed, ran past its timeout or left something running, and
// after HOST_FILES files (or HOST_RSS_MB of memory). A skipped test counts as a failure (nothing may be silently
// skipped), and so do a file that finds no tests, a file that throws while loading and a
// file that runs past its timeout (its child is killed, with whatever it started).
//
//   node dist/test/run.js [filter ...] [--jobs N] [--timeout SECONDS] [--isolate] [--write-timings]
//
// filter: substrings of the paths to run (files or folders; a file runs if any matches). --jobs: files at once
// (default 5: on two cores, a file waiting on a server, a child or a NATS timer keeps the
// cores busy with another; measured on the 2-core VM, same tree: 4 at a time 275.7 s, 5 at
// a time 262.0 s, the same 504–506 s of CPU). --timeout: how long one file may run (default 180 s). --isolate: a fresh
// child for every file (to tell whether a failure depends on the files run before it).
// --write-timings: record each file's duration in test/timings.json, which orders the next
// runs, slowest first, so the pool's last files end together rather than one long file at the end.
// TEST_JOBS and TEST_TIMEOUT_S in the environment set the same as the flags.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { END_MARK, type FileEnd } from './run-protocol.js';

const here = dirname(fileURLToPath(import.meta.url));
const HOST = join(here, 'run-host.js');
// A child runs at most this many files, and none after its memory passes HOST_RSS_MB
// (what files load stays loaded: caches, compiled code, DuckDB's allocator). A fresh child
// loads the service's modules again, about a second of a core (flags/api/flags: 1.1-1.35 s
// of CPU as a child's first file, 0.27-0.33 s after another file): at 40, each of the five
// workers started a third child for its last ~11 files; the memory bound still replaces one.
const HOST_FILES = 100;
const HOST_RSS_MB = 1024;
// In the source tree (dist/test/ is two levels below the repository root).
const TIMINGS = join(here, '../../test/timings.json');
// A file not in test/timings.json yet is assumed this slow (seconds).
const UNKNOWN_FILE_S = 10;
const TAIL_LINES = 40;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { jobs: { type: 'string' }, timeout: { type: 'string' }, isolate: { type: 'boolean' }, 'write-timings': { type: 'boolean' } },
});
const jobs = Math.max(1, Number(values.jobs ?? process.env.TEST_JOBS ?? 5) || 5);
const timeoutMs = 1000 * Math.max(1, Number(values.timeout ?? process.env.TEST_TIMEOUT_S ?? 180) || 180);
const isolate = values.isolate === true;
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

// A process running files one after another (test/run-host.ts), in a process group of its
// own so that ending it ends the servers and children its files started.
interface Host {
  run(file: string): Promise<{ result: FileResult; reusable: boolean }>;
  end(): void;
  // False once the process has exited (between files too: a leftover of a file that passed
  // can still end it, and the next file must not be blamed for that).
  alive(): boolean;
  files: number;
}

function startHost(): Host {
  // One pipe for both streams, so a file's lines (and glibc's or a native library's
  // messages on fd 2) stay in the order they were written.
  const child = spawn('/bin/sh', ['-c', 'exec "$0" "$@" 2>&1', process.execPath, HOST], {
    detached: true, stdio: ['pipe', 'pipe', 'ignore'],
    // LIBC_FATAL_STDERR_: glibc's own fatal messages (a heap corruption before an abort)
    // go to the terminal, which the file's process has none of, unless told otherwise.
    env: { ...process.env, LIBC_FATAL_STDERR_: '1', ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) },
  });
  const pid = child.pid!;
  running.add(pid);
  let output = '';
  let onOutput: (() => void) | null = null;
  let exited: string | null = null;
  child.stdout!.on('data', (d: Buffer) => { output += d.toString(); onOutput?.(); });
  // Once the process is gone, whatever it left running goes too (and with it any pipe a
  // leftover held open).
  child.once('exit', (code, signal) => { exited = `exit ${code ?? signal}`; killGroup(pid); running.delete(pid); onOutput?.(); });
  child.stdin!.on('error', () => { /* the process ended: its exit says so */ });

  const host: Host = {
    files: 0,
    alive: () => exited === null,
    run(file) {
      host.files++;
      const name = relative(here, file);
      const started = Date.now();
      output = '';
      child.stdin!.write(`${file}\n`);
      return new Promise((resolve) => {
        let timedOut = false;
        const finish = (end: FileEnd | null) => {
          onOutput = null;
          clearTimeout(timer);
          const ms = Date.now() - started;
          const text = end ? output.slice(0, output.lastIndexOf(END_MARK)) : output;
          const seen = end ? counts(text) : null;
          let problem: string | null = null;
          if (timedOut) problem = `killed after ${timeoutMs / 1000} s (per-file timeout)`;
          else if (!seen) problem = `ended without uvu's summary (${exited ?? 'no summary'})`;
          else if (seen.total === 0) problem = 'no tests found';
          const passed = seen?.passed ?? 0;
          const failed = seen && seen.total > 0 ? seen.total - seen.passed + seen.skipped : 1;
          const shown = text.trimEnd();
          const block = `\n── ${name} (${(ms / 1000).toFixed(1)} s, CPU ${((end?.cpuMs ?? 0) / 1000).toFixed(1)} s)${problem ? `: ${problem}` : ''}\n${shown}\n`;
          process.stdout.write(block);
          const result = { name, passed, failed, ms, cpuMs: end?.cpuMs ?? 0, problem, tail: failed > 0 ? shown.split('\n').slice(-TAIL_LINES).join('\n') : '' };
          // A process is used again only after a file that passed and left nothing behind.
          const reusable = end !== null && failed === 0 && end.left.length === 0 && end.rssMb < HOST_RSS_MB;
          if (end && end.left.length > 0) process.stdout.write(`   (${name} left ${end.left.join(', ')}: its process is not used again)\n`);
          resolve({ result, reusable });
        };
        const timer = setTimeout(() => { timedOut = true; killGroup(pid); finish(null); }, timeoutMs);
        onOutput = () => {
          const at = output.lastIndexOf(END_MARK);
          if (at >= 0) {
            const eol = output.indexOf('\n', at);
            if (eol >= 0) return finish(JSON.parse(output.slice(at + END_MARK.length, eol)) as FileEnd);
          }
          if (exited) finish(null);
        };
        if (exited) finish(null);
      });
    },
    end() {
      child.stdin!.end();
      // Its files have ended; anything still running in its group has no business there.
      setTimeout(() => killGroup(pid), 1000).unref();
    },
  };
  return host;
}

const files = findTests(here).filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)));
const timings = readTimings();
const expected = (f: string) => timings[relative(here, f)] ?? UNKNOWN_FILE_S * 1000;
files.sort((a, b) => expected(b) - expected(a));

const started = Date.now();
const results: FileResult[] = [];
let next = 0;
async function worker(): Promise<void> {
  let host: Host | null = null;
  while (next < files.length) {
    const file = files[next++];
    if (host !== null && !host.alive()) host = null;
    host ??= startHost();
    const { result, reusable } = await host.run(file);
    results.push(result);
    if (!reusable || isolate || host.files >= HOST_FILES) {
      host.end();
      host = null;
    }
  }
  host?.end();
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
