// How long the HTTP thread is held up while the management API scans. A data dir is
// seeded with `--persons` persons (30-odd properties each, test/helpers/synthetic-persons.ts). Then, for each server build
// (this one, and with --baseline DIR also a built worktree of an earlier commit), the real
// server runs on CPU 0. This process is on CPU 1 and sends a persons search that matches
// nobody, so the server reads every person. While that search runs, this process
// probes /_liveness, one request at a time, 5 ms apart. Reported: the search's time and
// the probes' latencies during it, beside the same probes on the idle server.
//   node dist/bench/management-scans.js [--persons 100000] [--rounds 3] [--baseline DIR] [--record]
// --record appends a dated section to bench/RESULTS.md.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { writeSyntheticPersons } from '../test/helpers/synthetic-persons.js';
import { percentile } from './fixed-rate.js';
import { root, startPinned } from './ceiling.js';
import { cliEntry } from './cli-entry.js';

const { values: args } = parseArgs({ options: {
  persons: { type: 'string', default: '100000' },
  rounds: { type: 'string', default: '3' },
  baseline: { type: 'string' },
  record: { type: 'boolean', default: false },
} });
const PERSONS = Number(args.persons);
const ROUNDS = Number(args.rounds);
const PROBE_GAP_MS = 5;
const IDLE_PROBES = 200;

execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });
const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-scans-'));
const dataDir = join(work, 'data');

// The project and a personal key, as `hedgerow init` makes them; then the persons.
const init = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8' }));
const projectId: number = init.project_id;
const key: string = init.personal_api_key;
{
  const store = openStore(dataDir, tables);
  await writeSyntheticPersons(store, projectId, PERSONS);
  await store.close();
}

const median = (xs: number[]) => percentile(Float64Array.from(xs).sort(), 50);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function probe(url: string): Promise<number> {
  const t = performance.now();
  const r = await fetch(`${url}/_liveness`);
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`/_liveness answered ${r.status}`);
  return performance.now() - t;
}

interface Measured { searchMs: number; during: number[]; idle: number[] }

async function measure(cwd: string): Promise<Measured> {
  const args = [cliEntry(cwd), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'];
  const { child, port } = await startPinned(args, cwd);
  const url = `http://127.0.0.1:${port}`;
  try {
    // Warm up the route and the workers, then the idle probes.
    await search(url);
    const idle: number[] = [];
    for (let i = 0; i < IDLE_PROBES; i++) {
      idle.push(await probe(url));
      await sleep(PROBE_GAP_MS);
    }
    let done = false;
    const t = performance.now();
    const searching = search(url).then(() => { done = true; return performance.now() - t; });
    const during: number[] = [];
    while (!done) {
      during.push(await probe(url));
      await sleep(PROBE_GAP_MS);
    }
    return { searchMs: await searching, during, idle };
  } finally {
    await stop(child);
  }
}

async function search(url: string): Promise<void> {
  const r = await fetch(`${url}/api/environments/${projectId}/persons/?search=nobody-has-this`, { headers: { Authorization: `Bearer ${key}` } });
  const body = await r.json() as { results: unknown[] };
  if (r.status !== 200 || body.results.length !== 0) throw new Error(`search answered ${r.status}`);
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

const builds = [
  ...(args.baseline ? [{ name: `baseline ${args.baseline}`, cwd: args.baseline }] : []),
  { name: 'this build', cwd: root },
];
const rows: string[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const b of builds) {
      const m = await measure(b.cwd);
      const ms = (x: number) => x.toFixed(1);
      rows.push(`| ${round} | ${b.name} | ${ms(m.searchMs)} | ${m.during.length} | ${ms(median(m.during))} | ${ms(Math.max(...m.during))} | ${ms(median(m.idle))} | ${ms(Math.max(...m.idle))} |`);
      console.log(rows[rows.length - 1]);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const command = ['node', relative(process.cwd(), process.argv[1]), ...process.argv.slice(2)].join(' ');
const table = [
  `${PERSONS.toLocaleString('en-US')} persons; a persons search matching nobody, server on CPU 0, /_liveness probed from CPU 1 one at a time, ${PROBE_GAP_MS} ms apart.`,
  '',
  '| round | build | search ms | probes during it | probe p50 ms | probe max ms | idle probe p50 ms | idle probe max ms |',
  '|---:|---|---:|---:|---:|---:|---:|---:|',
  ...rows,
].join('\n');
console.log(`\n${table}`);
if (args.record) {
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n## The HTTP thread during a persons search (${new Date().toISOString().slice(0, 10)})\n\nCommand: \`${command}\`\n\n${table}\n`);
  console.log('appended to bench/RESULTS.md');
}
