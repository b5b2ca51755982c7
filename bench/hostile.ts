// Hostile capture requests, one kind at a time, against a server of its own (not
// pinned: its worker threads may use the other core): how long each takes to answer,
// the slowest /_liveness probe meanwhile (probed every 25 ms from a thread of its own),
// and the server's resident memory before and at its peak (/proc). The requests are
// issue 13's (item 4): two 70 KB lz64 bombs at once, a 16 KB gzip of 16 MB of `{}`, a
// gzip of 70 MB of `{}` (past the 64 MiB cap), a raw 20 MiB /batch/ of 7 M `{}`.
// --baseline DIR measures the build in DIR (an earlier commit's worktree, built) too, in
// the same run, alternating which goes first.
//   node dist/bench/hostile.js [--runs 1] [--baseline DIR]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { watchServer } from '../test/helpers/server-watch.js';
import { emptyObjects, lz64Bomb } from '../test/helpers/hostile-bodies.js';
import { cliEntry } from './cli-entry.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '1' }, baseline: { type: 'string' } } });
const MB = 1024 * 1024;


interface Hostile { name: string; requests: { path: string; body: Buffer | string; headers: Record<string, string> }[] }
const lz = { 'Content-Type': 'text/plain' };
const gz = { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' };
const cases: Hostile[] = [
  { name: 'two 70 KB lz64 bombs at once', requests: [
    { path: '/batch/?compression=lz64', body: lz64Bomb(30_000), headers: lz },
    { path: '/i/v0/e/?compression=lz64', body: lz64Bomb(31_000), headers: lz },
  ] },
  { name: '16 KB gzip of 16 MB of {}', requests: [{ path: '/batch/', body: gzipSync(emptyObjects(16 * MB), { level: 9 }), headers: gz }] },
  { name: 'gzip of 70 MB of {} (past the cap)', requests: [{ path: '/batch/', body: gzipSync(emptyObjects(70 * MB), { level: 9 }), headers: gz }] },
  { name: 'raw 20 MiB /batch/ of 7 M {}', requests: [{ path: '/batch/', body: emptyObjects(20 * MB - 1), headers: { 'Content-Type': 'application/json' } }] },
];

async function start(cwd: string, dataDir: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cliEntry(cwd), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info'],
    { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
  const { port } = await jsonLine(child, 'listening', 'server');
  return { child, url: `http://127.0.0.1:${port}` };
}

async function measure(label: string, cwd: string, dataDir: string): Promise<string[]> {
  execFileSync(process.execPath, [cliEntry(cwd), 'init', '--data', dataDir, '--json'], { cwd });
  const server = await start(cwd, dataDir);
  for (let i = 0; i < 300 && (await fetch(`${server.url}/_readiness`).then((r) => r.status, () => 0)) !== 200; i++) await new Promise((r) => setTimeout(r, 100));
  const rows: string[] = [];
  for (const c of cases) {
    await new Promise((r) => setTimeout(r, 500));
    const watch = watchServer(server.url, server.child.pid!);
    const started = performance.now();
    const statuses = await Promise.all(c.requests.map((q) => fetch(`${server.url}${q.path}`, {
      method: 'POST', headers: q.headers, body: q.body,
    }).then(async (r) => { await r.arrayBuffer(); return r.status; }, () => 0)));
    const elapsed = performance.now() - started;
    await new Promise((r) => setTimeout(r, 200));
    const seen = await watch.stop();
    rows.push(`| ${label} | ${c.name} | ${statuses.join(', ')} | ${elapsed.toFixed(0)} | ${seen.slowestProbeMs.toFixed(0)} | ${(seen.startRssBytes / MB).toFixed(0)} | ${(seen.peakRssBytes / MB).toFixed(0)} |`);
  }
  server.child.kill('SIGKILL');
  return rows;
}

const builds = [{ label: `this build ${execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}`, cwd: root }];
if (values.baseline) builds.push({ label: `baseline ${execFileSync('git', ['-C', values.baseline, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim()}`, cwd: values.baseline });
const work = mkdtempSync(join(tmpdir(), 'hedgerow-hostile-'));
for (let run = 1; run <= Number(values.runs); run++) {
  const order = run % 2 === 1 ? builds : [...builds].reverse();
  console.log(`run ${run}: load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);
  console.log('| build | request | statuses | answered in ms | slowest /_liveness ms | RSS before MB | RSS peak MB |');
  console.log('|---|---|---|---:|---:|---:|---:|');
  for (const [i, b] of order.entries()) for (const row of await measure(b.label, b.cwd, join(work, `data-${run}-${i}`))) console.log(row);
  console.log('');
}
rmSync(work, { recursive: true, force: true });
