// Runs compiled test files with uvu one after another in one process, for test/run.ts:
// each line on stdin is a file's path; the file's output goes to stdout, and a marker line
// (END_MARK, then JSON) ends it. A file loads the service's modules into the process once
// for every file after it: most of what starting a test server costs the first time
// (bench/RESULTS.md, "the test suite's CPU"). The runner replaces this process after a file
// that failed or left something running (FileEnd.left), so one file's leftovers never
// meet another's tests.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { END_MARK, type FileEnd } from './run-protocol.js';

const g = globalThis as unknown as { UVU_DEFER: number; UVU_QUEUE: unknown[][]; UVU_INDEX: number };
// uvu collects the suites a file declares instead of running them as the file loads.
g.UVU_DEFER = 1;
const { exec } = await import('uvu');

// Fields 14 to 17 of /proc/self/stat (utime, stime, cutime, cstime), in clock ticks (100 a second).
function cpuMs(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return [11, 12, 13, 14].reduce((n, i) => n + Number(fields[i]), 0) * 10;
}

function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts;
}

// The pipes to the runner (stdin read line by line, stdout and stderr) are this process's
// own: their handles are made on first use.
const lines = createInterface({ input: process.stdin });
process.stdout.write('');
process.stderr.write('');
const baseline = resources();
// Closing sockets, timers and children settle over a few turns of the loop after a
// file's last hook; what is still there after this is the file's.
const SETTLE_MS = 500;

async function leftovers(): Promise<string[]> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const left: string[] = [];
    for (const [kind, n] of resources()) {
      const extra = n - (baseline.get(kind) ?? 0);
      if (extra > 0) left.push(`${kind} x${extra}`);
    }
    if (left.length === 0 || Date.now() >= deadline) return left;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function runFile(path: string): Promise<FileEnd> {
  const started = cpuMs();
  g.UVU_QUEUE = [[null]];
  g.UVU_INDEX = 0;
  let loaded = true;
  try {
    await import(pathToFileURL(resolve(path)).href);
  } catch (err) {
    process.stdout.write(`the file threw while loading: ${(err as Error).stack ?? String(err)}\n`);
    loaded = false;
  }
  if (loaded) await exec();
  const left = loaded ? await leftovers() : ['a file that threw while loading'];
  return { cpuMs: cpuMs() - started, left, rssMb: Math.round(process.memoryUsage.rss() / 2 ** 20) };
}

for await (const line of lines) {
  if (line.trim() === '') continue;
  const end = await runFile(line.trim());
  process.stdout.write(`\n${END_MARK}${JSON.stringify(end)}\n`);
}
// stdin closed: the runner has no more files for this process. Whatever a file left
// running must not keep it alive (the runner also ends its process group).
setTimeout(() => process.exit(), 200).unref();
