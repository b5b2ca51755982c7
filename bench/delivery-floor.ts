// What any delivery costs before its Hog program, in this process and nothing else (issue 26:
// at most 100 µs of CPU per delivery): the parts that a webhook delivered at least once
// cannot do without, each measured alone in the same run, against the local sink in another
// process (bench/destinations-sink):
// - raw: one HTTP/1.1 exchange on a kept-alive loopback socket, the request's bytes built
//   once beforehand and the answer only counted, never parsed: the kernel's and libuv's share
//   of a request, the least any HTTP client in Node pays;
// - client: the same exchange through hedgerow's client (src/destinations/fetch/http-fetch.ts:
//   the request's head and body written, the answer's head and JSON body parsed, its timer);
// - records: the destinations store's writes that make a delivery at-least-once and
//   deduplicated (src/destinations/runtime/queue.ts): `known`, the queue entry with a 1 KB
//   pack, 128 per transaction as the pipeline's chunk, with their position's count; then the
//   entry's removal and its position's count, the done mark and the transaction's time-index
//   record, 32 per transaction as a turn's outcomes (./outcomes.ts).
// Each part runs `--requests` times with `--concurrency` in flight; CPU is this process's
// (process.cpuUsage: every thread, so LMDB's write thread is counted), per delivery. The
// Hog program's own cost is bench/webhook-slices'.
//   node dist/bench/delivery-floor.js [--requests 20000] [--concurrency 48] [--rounds 3]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { httpFetch } from '../src/destinations/fetch/http-fetch.js';
import { parseAddressPolicy } from '../src/net/address-policy.js';
import { openDestinationsStore } from '../src/destinations/runtime/env.js';
import { addPending, dequeueAll, enqueue, known, recordDone, type InvocationKey } from '../src/destinations/runtime/queue.js';
import { root } from './ceiling.js';
import { jsonLine } from './child-line.js';

const { values: args } = parseArgs({ options: {
  requests: { type: 'string', default: '20000' },
  concurrency: { type: 'string', default: '48' },
  rounds: { type: 'string', default: '3' },
} });
const N = Number(args.requests);
const CONCURRENCY = Number(args.concurrency);
const ROUNDS = Number(args.rounds);

const sink = spawn(process.execPath, ['dist/bench/destinations-sink.js'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
const port = (await jsonLine(sink, 'listening', 'sink')).port as number;
// The short mix's body: four fields of an event.
const BODY = JSON.stringify({ event: '$pageview', uuid: '0190f5a0-1111-7000-8000-000000000000', url: 'https://example.com/pricing?plan=pro', person: '0190f5a0-2222-7000-8000-000000000000' });

// µs of this process's CPU per unit of `run`'s work.
async function cpuPer(units: number, run: () => Promise<void>): Promise<number> {
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / units;
}

// `n` tasks, `concurrency` at a time.
async function inFlight(n: number, concurrency: number, one: () => Promise<void>): Promise<void> {
  let started = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
}

// Raw: each lane its own kept-alive socket; a request's bytes written, the answer's end found
// by counting bytes (the sink's answer is the same length each time, measured on the first).
async function raw(n: number): Promise<void> {
  const request = Buffer.from(`POST /fn-a HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`);
  let answerLength = 0;
  const sockets: Socket[] = await Promise.all(Array.from({ length: CONCURRENCY }, () => new Promise<Socket>((resolve) => {
    const s = connect(port, '127.0.0.1', () => resolve(s));
    s.setNoDelay(true);
  })));
  // The answer's length, from one exchange whose head says it.
  await new Promise<void>((resolve) => {
    let text = '';
    const s = sockets[0];
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (head >= 0 && length && text.length >= head + 4 + Number(length[1])) {
        answerLength = head + 4 + Number(length[1]);
        s.off('data', onData);
        resolve();
      }
    };
    s.on('data', onData);
    s.write(request);
  });
  let next = 0;
  await inFlight(n, CONCURRENCY, () => new Promise<void>((resolve) => {
    const s = sockets[next++ % CONCURRENCY];
    let got = 0;
    const onData = (chunk: Buffer) => {
      got += chunk.length;
      if (got < answerLength) return;
      s.off('data', onData);
      resolve();
    };
    s.on('data', onData);
    s.write(request);
  }));
  for (const s of sockets) s.destroy();
}

const policy = parseAddressPolicy('127.0.0.1/32');
async function client(n: number): Promise<void> {
  const url = `http://127.0.0.1:${port}/fn-a`;
  await inFlight(n, CONCURRENCY, async () => {
    const outcome = await httpFetch({ url, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: BODY }, { policy, timeoutMs: 10_000, maxResponseBytes: 1 << 20 });
    if (!outcome.ok || outcome.status !== 200) throw new Error(`the sink answered ${JSON.stringify(outcome)}`);
  });
}

async function records(n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hedgerow-floor-'));
  const ds = openDestinationsStore(dir);
  const pack = new Uint8Array(1024).fill(7);
  const keys: InvocationKey[] = Array.from({ length: n }, (_, i) => ['fn-a', `0190f5a0-${String(i).padStart(4, '0')}-7000-8000-000000000000`, -1]);
  const now = Date.now();
  for (let i = 0; i < n; i += 128) {
    await ds.root.transaction(() => {
      const chunk = keys.slice(i, i + 128);
      for (const key of chunk) {
        if (known(ds, key)) throw new Error('known already');
        enqueue(ds, key, {
          functionId: key[0], projectId: 1, eventUuid: key[1], mappingIndex: -1, instanceId: '', globals: pack, state: null, response: null,
          pendingFetch: null, dueAt: now, queuedAt: now, failed: false, after: i,
        });
      }
      addPending(ds, i, chunk.length);
    });
  }
  const pending: Promise<unknown>[] = [];
  for (let i = 0; i < n; i += 32) pending.push(ds.root.transaction(() => {
    const finished = keys.slice(i, i + 32).map((key, j) => ({ key, inv: { after: (i + j) - ((i + j) % 128) }, unsuccessful: false }));
    dequeueAll(ds, finished);
    recordDone(ds, finished, now);
  }));
  await Promise.all(pending);
  await ds.close();
  rmSync(dir, { recursive: true, force: true });
}

const parts: [string, (n: number) => Promise<void>][] = [['raw', raw], ['client', client], ['records', records]];
console.log(`Node ${process.version}; ${N} deliveries per part, ${CONCURRENCY} in flight, ${ROUNDS} rounds; load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
// Warm-up: each part once on a tenth.
for (const [, run] of parts) await run(Math.ceil(N / 10));
const results = new Map<string, number[]>(parts.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of round % 2 === 0 ? parts : [...parts].reverse()) results.get(name)!.push(await cpuPer(N, () => run(N)));
}
console.log('| part | µs of CPU per delivery, each round | median |');
console.log('|---|---|---:|');
for (const [name, values] of results) {
  const sorted = [...values].sort((a, b) => a - b);
  console.log(`| ${name} | ${values.map((v) => v.toFixed(1)).join(' / ')} | ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} |`);
}
console.log(`Load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
sink.kill();
