// HTTP /decide?v=3 benchmark at a fixed offered rate. One data directory is seeded
// once: 10,000 persons (captured $identify events, processed by the consumer), 200
// groups, 3 cohorts and 50 flags of mixed kinds created through the management API.
// Then the ceiling (bare uWS reading and parsing the same bodies) and, for each server
// configuration, a fresh hedgerow pinned to CPU 0 (all its threads: HTTP, flag
// workers, consumers) are offered a fixed rate by the open-loop generator of
// bench/fixed-rate.ts running here, pinned to CPU 1. Each request is a posthog-js
// style body for one of the stored persons (70% with a company group). autocannon's
// own figures against the bare server are printed too: it is the reason for the
// generator. Each row also shows the server's own CPU time per request (all its threads,
// from /proc) and how busy CPU 0 was with other processes meanwhile: this machine is
// shared, and a run another program disturbed says so.
//   node dist/bench/decide.js [--rate 5000|3000,5000] [--duration 15] [--connections 64]
//     [--persons 10000] [--workers 1,2] [--baseline DIR] [--quiet-wait S] [--profile DIR] [--keep]
// --baseline DIR: also run the hedgerow built in DIR (e.g. a `git worktree` of an
// earlier commit, built) on the same data, for a before/after in one run.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fixedRate, percentile, postRequest } from './fixed-rate.js';
import { root, startPinned } from './ceiling.js';
import { createRequire } from 'node:module';
import { cliEntry } from './cli-entry.js';

// autocannon ships no types; this is the slice used here.
interface AutocannonInstance extends PromiseLike<any> {
  on(event: 'response', listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
}
const require = createRequire(import.meta.url);
const autocannon = require('autocannon') as (opts: Record<string, unknown>) => AutocannonInstance;
const autocannonVersion = (require('autocannon/package.json') as { version: string }).version;

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '5000' },
    duration: { type: 'string', default: '15' },
    connections: { type: 'string', default: '64' },
    persons: { type: 'string', default: '10000' },
    workers: { type: 'string', default: '1,2' },
    profile: { type: 'string' },
    baseline: { type: 'string' },
    'quiet-wait': { type: 'string', default: '60' },
    keep: { type: 'boolean', default: false },
  },
});
// --rate takes a list ("3000,5000"): each server is measured at each; the ceiling at the highest.
const rates = values.rate!.split(',').map(Number);
const rate = Math.max(...rates);
const duration = Number(values.duration);
const connections = Number(values.connections);
const personCount = Number(values.persons);
const workerCounts = values.workers!.split(',').map(Number);
const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-decide-'));
const dataDir = join(work, 'data');

// The load generator (this process) runs on CPU 1, the server on CPU 0.
execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'ignore' });

async function startServer(extra: string[], nodeArgs: string[] = [], cwd = root): Promise<{ child: ChildProcess; url: string }> {
  const args = [...nodeArgs, cliEntry(cwd), 'serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'info', ...extra];
  const { child, port } = await startPinned(args, cwd);
  return { child, url: `http://127.0.0.1:${port}` };
}

async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

async function call(url: string, method: string, body?: unknown, key?: string): Promise<any> {
  const res = await fetch(url, {
    method,
    headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

// Deterministic data: person i and company j always look the same.
const PLANS = ['free', 'pro', 'enterprise'];
const COUNTRIES = ['US', 'FR', 'DE', 'GB', 'JP', 'BR'];
const personId = (i: number) => `bench-user-${i}`;
const personProps = (i: number) => ({
  email: `user${i}@${['acme.com', 'example.com', 'test.io'][i % 3]}`,
  plan: PLANS[i % 3],
  country: COUNTRIES[i % 6],
  seats: (i * 37) % 500,
  app_version: `${i % 4}.${(i * 7) % 13}.${(i * 11) % 21}`,
  signed_up: new Date(Date.UTC(2023, 0, 1) + ((i * 7919) % 1000) * 86_400_000).toISOString(),
  beta: i % 5 === 0,
});
const companyOf = (i: number) => `company-${i % 200}`;

// 50 flags: 10 rollouts, 8 multivariate with payloads, 15 person-property filters,
// 5 cohort flags, 5 group flags, 4 dependencies, 3 boolean payload + holdout.
function flagDefinitions(cohortIds: number[]): { key: string; filters: Record<string, unknown>; dependsOn?: string }[] {
  const out: { key: string; filters: Record<string, unknown>; dependsOn?: string }[] = [];
  const person = (key: string, operator: string, value?: unknown) => ({ key, type: 'person', operator, ...(value === undefined ? {} : { value }) });
  for (let i = 0; i < 10; i++) out.push({ key: `rollout-${i}`, filters: { groups: [{ properties: [], rollout_percentage: (i + 1) * 9 }] } });
  for (let i = 0; i < 8; i++) {
    out.push({
      key: `experiment-${i}`,
      filters: {
        groups: [{ properties: i % 2 ? [person('country', 'exact', ['US', 'GB'])] : [], rollout_percentage: 80 }],
        multivariate: { variants: [{ key: 'control', rollout_percentage: 34 }, { key: 'test-a', rollout_percentage: 33 }, { key: 'test-b', rollout_percentage: 33 }] },
        payloads: { control: '{"color":"blue"}', 'test-a': '{"color":"green","size":2}', 'test-b': '"plain"' },
      },
    });
  }
  const propertyConditions = [
    [person('plan', 'exact', ['pro', 'enterprise'])],
    [person('email', 'icontains', 'acme')],
    [person('email', 'regex', '^user[0-9]+@(acme|test)\\.')],
    [person('seats', 'gt', '100')],
    [person('seats', 'lte', '50'), person('country', 'exact', ['FR', 'DE'])],
    [person('app_version', 'semver_gte', '2.0.0')],
    [person('app_version', 'semver_caret', '1.2.0')],
    [person('signed_up', 'is_date_after', '2024-01-01')],
    [person('signed_up', 'is_date_before', '-30d')],
    [person('beta', 'exact', ['true'])],
    [person('country', 'is_not', ['US'])],
    [person('email', 'not_icontains', 'example')],
    [person('plan', 'exact', ['free']), person('seats', 'gte', '10'), person('country', 'exact', ['US', 'BR'])],
    [person('email', 'ends_with', '.io')],
    [person('app_version', 'semver_lt', '1.0.0')],
  ];
  propertyConditions.forEach((properties, i) => {
    out.push({ key: `targeted-${i}`, filters: { groups: [{ properties, rollout_percentage: 50 + i * 3 }, { properties: [person('plan', 'exact', ['enterprise'])] }] } });
  });
  for (let i = 0; i < 5; i++) {
    out.push({ key: `cohort-${i}`, filters: { groups: [{ properties: [{ key: 'id', type: 'cohort', value: cohortIds[i % cohortIds.length], operator: i === 4 ? 'not_in' : 'in' }] }] } });
  }
  for (let i = 0; i < 5; i++) {
    out.push({
      key: `company-${i}`,
      filters: { aggregation_group_type_index: 0, groups: [{ properties: [{ key: 'employees', type: 'group', group_type_index: 0, operator: 'gt', value: String(i * 200) }], rollout_percentage: 90 }] },
    });
  }
  for (let i = 0; i < 4; i++) out.push({ key: `dependent-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 70 }] }, dependsOn: i % 2 ? `experiment-${i}` : `targeted-${i}` });
  for (let i = 0; i < 3; i++) {
    out.push({ key: `banner-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 60 }], payloads: { true: `{"banner":${i}}` }, holdout: { id: i + 1, exclusion_percentage: 10 } } });
  }
  return out;
}

async function seed(): Promise<{ token: string }> {
  const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8' }));
  const { child, url } = await startServer([]);
  try {
    const token: string = keys.project_api_key;
    const personal: string = keys.personal_api_key;
    const projectId: number = keys.project_id;
    const started = Date.now();
    // Groups first: group flags need the group type to exist.
    const groupEvents = Array.from({ length: 200 }, (_, j) => ({
      event: '$groupidentify', distinct_id: `$company_${j}`,
      properties: { $group_type: 'company', $group_key: `company-${j}`, $group_set: { employees: (j * 53) % 1200, industry: ['saas', 'retail'][j % 2] } },
    }));
    await call(`${url}/batch/`, 'POST', { api_key: token, batch: groupEvents });
    for (let i = 0; i < personCount; i += 500) {
      const batch = [];
      for (let k = i; k < Math.min(personCount, i + 500); k++) batch.push({ event: '$identify', distinct_id: personId(k), properties: { $set: personProps(k) } });
      await call(`${url}/batch/`, 'POST', { api_key: token, batch });
    }
    const persons = (id: string) => call(`${url}/api/projects/${projectId}/persons/?distinct_id=${id}`, 'GET', undefined, personal);
    await until(async () => (await persons(personId(personCount - 1))).results.length === 1, 300_000, 'the persons');
    const seededMs = Date.now() - started;

    const cohort = (values: unknown[]) => ({ properties: { type: 'OR', values: [{ type: 'AND', values }] } });
    const cohortIds: number[] = [];
    for (const values of [
      [{ key: 'plan', type: 'person', operator: 'exact', value: ['pro'] }, { key: 'seats', type: 'person', operator: 'gt', value: '200' }],
      [{ key: 'country', type: 'person', operator: 'exact', value: ['FR', 'DE', 'GB'] }],
      [{ key: 'email', type: 'person', operator: 'icontains', value: 'test.io' }, { key: 'beta', type: 'person', operator: 'exact', value: ['true'] }],
    ]) {
      cohortIds.push((await call(`${url}/api/projects/${projectId}/cohorts/`, 'POST', { name: `cohort ${cohortIds.length}`, filters: cohort(values) }, personal)).id);
    }
    const ids = new Map<string, number>();
    for (const def of flagDefinitions(cohortIds)) {
      const filters = def.dependsOn === undefined ? def.filters : {
        ...def.filters,
        groups: [{ properties: [{ key: String(ids.get(def.dependsOn)), type: 'flag', operator: 'flag_evaluates_to', value: true }], rollout_percentage: 70 }],
      };
      const flag = await call(`${url}/api/projects/${projectId}/feature_flags/`, 'POST', { key: def.key, filters }, personal);
      ids.set(def.key, flag.id);
    }
    // A sanity check: every flag answers for a stored person, with no errors.
    const check = await call(`${url}/decide/?v=3`, 'POST', { api_key: token, distinct_id: personId(7), groups: { company: companyOf(7) } });
    if (Object.keys(check.featureFlags).length !== 50 || check.errorsWhileComputingFlags) throw new Error(`unexpected answer: ${JSON.stringify(check)}`);
    console.error(`seeded ${personCount} persons and 200 groups in ${(seededMs / 1000).toFixed(1)} s; 3 cohorts, ${ids.size} flags`);
    return { token };
  } finally {
    await stopServer(child);
  }
}

interface Measured {
  label: string;
  offered: number;
  achieved: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  serviceP99: number;
  non2xx: number;
  unanswered: number;
  cpuPerRequestUs: number;
  foreignCpu0: number;
}

// CPU accounting from /proc: a process's user+system time, and each CPU's busy time.
const TICK_MS = 10;
function processCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}
function cpuBusyMs(cpu: number): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n').find((l) => l.startsWith(`cpu${cpu} `))!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  // idle, iowait and steal are not work done on this CPU.
  return { busy: (total - v[3] - v[4] - v[7]) * TICK_MS, total: total * TICK_MS };
}

// Waits (up to --quiet-wait seconds, default 60) for both CPUs to be mostly idle, so
// runs start undisturbed.
async function quiet(): Promise<void> {
  for (let i = 0; i < Number(values['quiet-wait']); i++) {
    const a = [cpuBusyMs(0), cpuBusyMs(1)];
    await new Promise((r) => setTimeout(r, 1000));
    const b = [cpuBusyMs(0), cpuBusyMs(1)];
    if (a.every((x, c) => (b[c].busy - x.busy) / Math.max(1, b[c].total - x.total) < 0.15)) return;
  }
  console.error(`CPUs still busy with other work after ${values['quiet-wait']} s; measuring anyway (see the other-load column)`);
}

function bodies(token: string): Buffer[] {
  return Array.from({ length: 4096 }, (_, n) => {
    const i = (n * 7919) % personCount;
    const body = { token, distinct_id: personId(i), ...(n % 10 < 7 ? { groups: { company: companyOf(i) } } : {}) };
    return postRequest('127.0.0.1', '/decide/?v=3', JSON.stringify(body));
  });
}

async function load(label: string, url: string, requests: Buffer[], seconds: number, pid: number, offered = rate): Promise<Measured> {
  const { port } = new URL(url);
  const cpu0 = cpuBusyMs(0);
  const own0 = processCpuMs(pid);
  const r = await fixedRate({ host: '127.0.0.1', port: Number(port), requests, rate: offered, durationMs: seconds * 1000, connections });
  const own = processCpuMs(pid) - own0;
  const cpu1 = cpuBusyMs(0);
  return {
    label, offered, achieved: r.achieved,
    p50: percentile(r.latencies, 50), p90: percentile(r.latencies, 90), p99: percentile(r.latencies, 99),
    max: r.latencies[r.latencies.length - 1] ?? NaN, serviceP99: percentile(r.serviceTimes, 99),
    non2xx: r.non2xx, unanswered: r.unanswered,
    cpuPerRequestUs: (own * 1000) / Math.max(1, r.completed),
    foreignCpu0: Math.max(0, (cpu1.busy - cpu0.busy - own) / Math.max(1, cpu1.total - cpu0.total)),
  };
}

// autocannon at the same rate against the bare server: shows what it can offer here.
async function autocannonCeiling(url: string, seconds: number): Promise<string> {
  const result: any = await autocannon({
    url: `${url}/decide/?v=3`, method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: 'x', distinct_id: 'y' }), connections, overallRate: rate, duration: seconds,
  });
  return `autocannon ${autocannonVersion} at ${rate} req/s against the bare server: ` +
    `${Math.round(result.requests.total / result.duration)} req/s achieved, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`;
}

async function startCeiling(): Promise<{ child: ChildProcess; url: string }> {
  const { child, port } = await startPinned(['dist/bench/ceiling-server.js', '0']);
  return { child, url: `http://127.0.0.1:${port}` };
}

const { token } = await seed();
const requests = bodies(token);
const results: Measured[] = [];
await quiet();
const ceiling = await startCeiling();
let autocannonNote = '';
try {
  await load('warm-up', ceiling.url, requests, 2, ceiling.child.pid!);
  results.push(await load('ceiling: bare uWS + JSON.parse', ceiling.url, requests, duration, ceiling.child.pid!));
  autocannonNote = await autocannonCeiling(ceiling.url, 5);
} finally {
  await stopServer(ceiling.child);
}
const servers: { label: string; extra: string[]; cwd: string }[] = [];
if (values.baseline) {
  let describe = values.baseline;
  try {
    describe = execFileSync('git', ['-C', values.baseline, 'log', '-1', '--format=%h'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch { /* not a git checkout (e.g. a `git archive` copy): its path names it */ }
  for (const workers of workerCounts) servers.push({ label: `baseline ${describe} --flag-workers ${workers}`, extra: ['--flag-workers', String(workers)], cwd: values.baseline });
}
const head = execFileSync('git', ['-C', root, 'log', '-1', '--format=%h'], { encoding: 'utf8' }).trim();
for (const workers of workerCounts) servers.push({ label: `hedgerow ${head} --flag-workers ${workers}`, extra: ['--flag-workers', String(workers)], cwd: root });
for (const server of servers) {
  const nodeArgs = values.profile ? ['--cpu-prof', '--cpu-prof-dir', join(values.profile, server.label.replace(/\W+/g, '-'))] : [];
  await quiet();
  const { child, url } = await startServer(server.extra, nodeArgs, server.cwd);
  try {
    await load('warm-up', url, requests, 3, child.pid!); // JIT, definitions compiled, LMDB pages cached
    for (const r of rates) results.push(await load(server.label, url, requests, duration, child.pid!, r));
  } finally {
    await stopServer(child);
  }
}
if (!values.keep) rmSync(work, { recursive: true, force: true });
else console.error(`data kept in ${dataDir}`);

const f = (n: number, digits = 2) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
console.log([
  `/decide?v=3, ${personCount} stored persons, 50 flags (70% of requests with a company group); fixed offered rate for ${duration} s ` +
    `over ${connections} keep-alive connections after a warm-up; latency from when each request was due (open loop); server on CPU 0, load generator on CPU 1`,
  '| target | offered req/s | achieved req/s | p50 ms | p90 ms | p99 ms | max ms | p99 service ms | non-2xx | unanswered | server CPU µs/req | other load on CPU 0 |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ...results.map((r) => `| ${r.label} | ${r.offered} | ${f(r.achieved, 0)} | ${f(r.p50)} | ${f(r.p90)} | ${f(r.p99)} | ${f(r.max)} | ${f(r.serviceP99)} | ` +
    `${r.non2xx} | ${r.unanswered} | ${f(r.cpuPerRequestUs, 0)} | ${f(r.foreignCpu0 * 100, 0)}% |`),
  '',
  autocannonNote,
].join('\n'));
