// Insights over NATS beside the embedded worker (docs/decisions/0030): the same events
// captured into a serve node with two `hedgerow aggregate` replicas on a nats-server, and
// into an embedded serve; then, for each:
//   1. query latency: `--queries` sequential force_blocking calls of a daily trend and a
//      daily unique-users count over the last 7 days (p50, p99);
//   2. read-your-writes: capture one marker event, query its count at once; how long the
//      answer took and whether it saw the marker (over NATS a replica waits until it has
//      loaded the stream's end; embedded answers with what is loaded);
//   3. failover (NATS): a query in flight when the replica holding it is SIGKILLed.
//   node dist/bench/insights-nats.js [--events 50000] [--queries 100] [--record]
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';
import { startNatsServer } from '../test/helpers/nats.js';
import { cliEntry } from './cli-entry.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '50000' },
  queries: { type: 'string', default: '100' },
  record: { type: 'boolean', default: false },
} });
const EVENTS = Number(args.events);
const QUERIES = Number(args.queries);
const PER_REQUEST = 500;

const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => n.toFixed(1);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

const work = mkdtempSync(join(tmpdir(), 'hedgerow-bench-insights-nats-'));
const children: ChildProcess[] = [];
const nats = await startNatsServer();
const quiet = { HEDGEROW_GEOIP_DB: 'none', HEDGEROW_FLAG_WORKERS: '1', HEDGEROW_HOG_WORKERS: '1' };

async function start(command: 'serve' | 'aggregate', dataDir: string, env: Record<string, string>, ready: string): Promise<{ child: ChildProcess; port: number }> {
  const extra = command === 'serve' ? ['--port', '0', '--host', '127.0.0.1'] : [];
  const child = spawn(process.execPath, [cliEntry(root), command, ...extra, '--data', dataDir, '--log-level', 'info'],
    { cwd: root, stdio: ['ignore', 'pipe', 'ignore'], env: { ...process.env, ...quiet, ...env } });
  children.push(child);
  const m = await jsonLine(child, ready, command);
  return { child, port: (m.port as number | undefined) ?? 0 };
}

interface Node { name: string; base: string; keys: { project_id: number; project_api_key: string; personal_api_key: string } }

async function serveNode(name: string, env: Record<string, string>): Promise<Node> {
  const dataDir = join(work, name);
  const keys = JSON.parse(execFileSync(process.execPath, [cliEntry(root), 'init', '--data', dataDir, '--json'], { cwd: root, encoding: 'utf8', env: { ...process.env, ...env } }));
  const { port } = await start('serve', dataDir, env, 'listening');
  return { name, base: `http://127.0.0.1:${port}`, keys };
}

async function post(node: Node, body: string): Promise<void> {
  const r = await fetch(`${node.base}/batch/`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`capture answered ${r.status}`);
}

function batchBody(node: Node, from: number, size: number, event = '$pageview'): string {
  const batch = [];
  const now = Date.now();
  for (let n = from; n < from + size; n++) {
    const p = (n * 7919) % 20_000;
    batch.push({ event, distinct_id: `user-${p}`, uuid: randomUUID(), timestamp: new Date(now - (n % 7) * 86_400_000).toISOString(), properties: { plan: p % 3 ? 'free' : 'paid' } });
  }
  return JSON.stringify({ api_key: node.keys.project_api_key, batch });
}

async function query(node: Node, q: unknown): Promise<{ ms: number; body: { results?: unknown } }> {
  const t = performance.now();
  const r = await fetch(`${node.base}/api/environments/${node.keys.project_id}/query/`, {
    method: 'POST', headers: { Authorization: `Bearer ${node.keys.personal_api_key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: q, refresh: 'force_blocking' }),
  });
  const body = await r.json() as { results?: unknown };
  if (r.status !== 200) throw new Error(`query answered ${r.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - t, body };
}

const trend = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], dateRange: { date_from: '-7d' } };
const dau = { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], dateRange: { date_from: '-7d' } };
const total = async (node: Node) => ((await query(node, trend)).body.results as { count: number }[])[0].count;

try {
  say(`Node ${process.version}; load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const natsNode = await serveNode('serve-nats', { NATS_URL: nats.url });
  const embedded = await serveNode('serve-embedded', {});
  const replicas = await Promise.all(['replica-1', 'replica-2'].map((name) => start('aggregate', join(work, name), { NATS_URL: nats.url }, 'aggregating')));

  for (let sent = 0; sent < EVENTS; sent += PER_REQUEST) {
    const size = Math.min(PER_REQUEST, EVENTS - sent);
    await Promise.all([post(natsNode, batchBody(natsNode, sent, size)), post(embedded, batchBody(embedded, sent, size))]);
  }
  // Over NATS the first query waits for a replica to load everything; embedded, poll.
  while ((await total(embedded)) < EVENTS) await sleep(200);
  if ((await total(natsNode)) !== EVENTS) throw new Error('a replica answered without every event');
  say(`${fmt(EVENTS)} events from 20,000 distinct ids over 7 days, captured into both; two replicas`);

  for (const [label, q] of [['daily trend', trend], ['daily unique users', dau]] as const) {
    for (const node of [embedded, natsNode]) {
      const times: number[] = [];
      for (let i = 0; i < QUERIES; i++) times.push((await query(node, q)).ms);
      times.sort((a, b) => a - b);
      say(`${label}, ${node === natsNode ? 'NATS, 2 replicas' : 'embedded'}: p50 ${ms(percentile(times, 50))} ms, p99 ${ms(percentile(times, 99))} ms (${QUERIES} queries)`);
    }
  }

  for (const node of [embedded, natsNode]) {
    const times: number[] = [];
    let saw = 0;
    for (let i = 0; i < 20; i++) {
      const marker = `marker-${randomUUID()}`;
      await post(node, batchBody(node, 0, 1, marker));
      const r = await query(node, { kind: 'EventsQuery', select: ['count()'], event: marker, after: '-1h' });
      times.push(r.ms);
      if ((r.body.results as number[][])[0][0] === 1) saw++;
    }
    times.sort((a, b) => a - b);
    say(`read-your-writes, ${node === natsNode ? 'NATS' : 'embedded'}: the query right after the 200 saw the event ${saw} of 20 times; p50 ${ms(percentile(times, 50))} ms, max ${ms(times[times.length - 1])} ms`);
  }

  for (const r of replicas) r.child.kill('SIGSTOP');
  const t = performance.now();
  const inFlight = Promise.all(Array.from({ length: 4 }, () => query(natsNode, dau)));
  await sleep(200);
  replicas[0].child.kill('SIGKILL');
  replicas[1].child.kill('SIGCONT');
  await inFlight;
  say(`failover: 4 queries held by two frozen replicas, one SIGKILLed after 200 ms, the other thawed: all answered after ${ms(performance.now() - t)} ms`);
} finally {
  for (const c of children) c.kill('SIGKILL');
  await nats.close();
  rmSync(work, { recursive: true, force: true });
}

if (args.record) {
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n## Insights over NATS: replicas beside the embedded worker (${new Date().toISOString().slice(0, 10)})\n\n` +
    '`node dist/bench/insights-nats.js' + (EVENTS !== 50000 ? ` --events ${EVENTS}` : '') + '` on the shared 2-core VM\n\n' + lines.map((l) => `- ${l}`).join('\n') + '\n');
}
