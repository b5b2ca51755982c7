// Embedded log append benchmark: N concurrent appenders, each awaiting one
// single-event append after another, against (a) a plain lmdb-js put per event and
// (b) hedgerow's LMDB log (group commit, one record per commit). Reports appends/s,
// LMDB commits/s and events per commit. Files go to a temp dir on the same disk as
// the service's data dir would be.
//   node dist/bench/log-append.js [--seconds 2] [--concurrency 1,16,64,256]
import { open, type Database, type RootDatabase } from 'lmdb';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { createLmdbLog } from '../src/log/lmdb-log.js';
import { encodeFrames } from '../src/log/record.js';
import { encodeRecord, eventsFrame, captureCodec } from '../src/capture/frames.js';
import { createGroupCommitter } from '../src/log/group-commit.js';
import type { CapturedEvent } from '../src/log/types.js';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '1,16,64,256' } } });
const seconds = Number(values.seconds);
const levels = values.concurrency!.split(',').map(Number);

// About 250 bytes once encoded, like the capture benchmark's event.
function event(i: number): CapturedEvent {
  return {
    uuid: `0190a6b2-7c1d-7000-8000-${String(i).padStart(12, '0')}`, event: '$pageview', distinct_id: `user-${i % 1000}`,
    properties: { $current_url: 'https://example.com/pricing?ref=newsletter', $browser: 'Firefox', plan: 'pro' },
    timestamp: new Date().toISOString(), project_id: 1, ip: '127.0.0.1', now: new Date().toISOString(), sent_at: null, historical: false,
  };
}

const lastTxnId = (root: RootDatabase) => (root.getStats() as { lastTxnId: number }).lastTxnId;

interface Subject {
  append(e: CapturedEvent): Promise<void>;
  txnId(): number;
  close(): Promise<void>;
}

function plainPut(dir: string, opts: { overlappingSync: boolean; awaitFlushed: boolean }): Subject {
  const root: RootDatabase = open({ path: join(dir, 'plain.lmdb'), maxDbs: 2, overlappingSync: opts.overlappingSync, separateFlushed: opts.awaitFlushed });
  const db: Database<Buffer, number> = root.openDB({ name: 'log', encoding: 'binary' });
  let seq = 0;
  return {
    async append(e) {
      const written = db.put(++seq, encodeRecord([e])) as Promise<boolean> & { flushed?: Promise<void> };
      await written;
      if (opts.awaitFlushed) await written.flushed;
    },
    txnId: () => lastTxnId(root),
    close: () => root.close(),
  };
}

// The log's earlier design: the same group commit and record per commit, on an
// environment with overlapping sync, each commit awaiting its `flushed` promise.
function groupCommitAwaitingFlushed(dir: string): Subject {
  const root: RootDatabase = open({ path: join(dir, 'flushed.lmdb'), maxDbs: 2, overlappingSync: true, separateFlushed: true });
  const db: Database<Buffer, number> = root.openDB({ name: 'log', encoding: 'binary' });
  let seq = 0;
  const committer = createGroupCommitter({
    maxInFlight: 4,
    async commit(frames) {
      const written = db.put(++seq, encodeFrames(frames)) as Promise<boolean> & { flushed?: Promise<void> };
      await written;
      await written.flushed;
    },
  });
  return {
    append: (e) => committer.append(eventsFrame([e])),
    txnId: () => lastTxnId(root),
    async close() { await committer.drain(); await root.close(); },
  };
}

function hedgerowLog(dir: string): Subject {
  const store = openStore(dir, tables);
  const log = createLmdbLog(store, captureCodec);
  return {
    append: (e) => log.append([e]),
    txnId: () => lastTxnId(store.logRoot),
    async close() { await log.close(); await store.close(); },
  };
}

const variants: Array<{ name: string; durable: string; make: (dir: string) => Subject }> = [
  { name: 'plain put per event, resolves at commit', durable: 'no (not yet synced)', make: (d) => plainPut(d, { overlappingSync: true, awaitFlushed: false }) },
  { name: 'plain put per event + await flushed', durable: 'yes', make: (d) => plainPut(d, { overlappingSync: true, awaitFlushed: true }) },
  { name: 'plain put per event, sync commits', durable: 'yes', make: (d) => plainPut(d, { overlappingSync: false, awaitFlushed: false }) },
  { name: 'group commit, record per commit, overlapping sync + await flushed', durable: 'yes', make: groupCommitAwaitingFlushed },
  { name: 'hedgerow LMDB log (group commit, record per commit, sync commits)', durable: 'yes', make: hedgerowLog },
];

async function measure(make: (dir: string) => Subject, concurrency: number): Promise<{ appendsPerSec: number; commitsPerSec: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'hedgerow-log-bench-'));
  const subject = make(dir);
  let n = 0;
  let stop = false;
  const firstTxn = subject.txnId();
  const started = performance.now();
  const appender = async () => { while (!stop) await subject.append(event(n++)); };
  const running = Array.from({ length: concurrency }, appender);
  await new Promise((r) => setTimeout(r, seconds * 1000));
  stop = true;
  await Promise.all(running);
  const elapsed = (performance.now() - started) / 1000;
  const commits = subject.txnId() - firstTxn;
  await subject.close();
  rmSync(dir, { recursive: true, force: true });
  return { appendsPerSec: n / elapsed, commitsPerSec: commits / elapsed };
}

const fmt = (x: number) => Math.round(x).toLocaleString('en-US');
console.log(`Node ${process.version}, ${seconds} s per cell, single-event appends, monotonic keys\n`);
console.log('| variant | durable on ack | appenders | appends/s | commits/s | events/commit |');
console.log('|---|---|---:|---:|---:|---:|');
for (const v of variants) {
  for (const c of levels) {
    const r = await measure(v.make, c);
    console.log(`| ${v.name} | ${v.durable} | ${c} | ${fmt(r.appendsPerSec)} | ${fmt(r.commitsPerSec)} | ${(r.appendsPerSec / Math.max(r.commitsPerSec, 1e-9)).toFixed(1)} |`);
  }
}
