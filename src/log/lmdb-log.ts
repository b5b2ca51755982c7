// Embedded event log in LMDB. One record per group commit (the frames of every
// append it carries, src/log/record.ts; what frames hold is the codec's), keyed by a monotonic
// sequence so appends land at the right edge of the B-tree. Readers in other
// threads hear about new records on a BroadcastChannel and poll as a fallback.
import type { LogTables } from './tables.js';
import { LMDB_LOG_ID, type EventLog, type LogCodec, type LogEntry, type LogReader } from './types.js';
import { encodeFrames, recordEntry } from './record.js';
import { createGroupCommitter } from './group-commit.js';
import { DEFAULT_CONSUMER_BATCH_BYTES } from '../settings.js';

// The fallback: records appended by another process (a CLI command on the same data dir)
// wake no reader here. Every poll is a read transaction in each consumer thread: at 50 ms,
// an idle server spent ~1% of a core per consumer on them.
const POLL_MS = 250;
const WAKE_INTERVAL_MS = 5;
// A consumer handler receives records of at most about this many bytes at once, unless
// told otherwise: as many as are there when it has fallen behind, so the store writes
// each B-tree page it touches once for many events (5,000 → 50,000 events per
// transaction halved the cost of a random person write). 16 MiB is about 50,000
// events of 300 bytes. Bytes, not events: counting events would mean decoding early.
export const READ_BYTE_BUDGET = DEFAULT_CONSUMER_BATCH_BYTES;

function channelName(store: LogTables): string {
  return `hedgerow-log:${store.logPath}`;
}

export function newestSeq(store: LogTables): number {
  for (const key of store.log.getKeys({ reverse: true, limit: 1 })) return key as number;
  return 0;
}

export function oldestSeq(store: LogTables): number {
  for (const key of store.log.getKeys({ limit: 1 })) return key as number;
  return 0;
}

export function createLmdbLog(store: LogTables, codec: LogCodec): EventLog {
  let seq = newestSeq(store);
  let durableSeq = seq;
  let appended = store.logCounts.get(seq)?.[1] ?? 0;
  const channel = new BroadcastChannel(channelName(store));
  const committer = createGroupCommitter({
    maxInFlight: 4,
    async commit(frames) {
      const s = ++seq;
      let events = 0;
      for (let i = 0; i < frames.length; i++) events += frames[i].events;
      appended += events;
      // Both puts ride on the same LMDB transaction: lmdb-js batches the writes of one turn.
      const written = store.log.put(s, encodeFrames(frames));
      store.logCounts.put(s, [events, appended]);
      await written;
      if (s > durableSeq) durableSeq = s;
      wakeReaders();
    },
  });
  // Readers poll anyway; a wake-up at most every few milliseconds keeps their
  // latency low without a cross-thread message per commit.
  let wakeTimer: NodeJS.Timeout | null = null;
  function wakeReaders() {
    if (wakeTimer) return;
    wakeTimer = setTimeout(() => { wakeTimer = null; channel.postMessage(durableSeq); }, WAKE_INTERVAL_MS);
  }
  return {
    id: LMDB_LOG_ID,
    append: (events) => committer.append(codec.eventsFrame(events)),
    appendFrame: (frame) => committer.append(frame),
    pending: () => committer.pending(),
    lastSeq: () => durableSeq,
    async close() {
      await committer.drain();
      // A wake-up still pending would post on the closed channel and throw.
      if (wakeTimer) clearTimeout(wakeTimer);
      channel.close();
    },
  };
}

export function createLmdbLogReader(store: LogTables, codec: LogCodec, maxBytes = READ_BYTE_BUDGET): LogReader {
  const channel = new BroadcastChannel(channelName(store));
  let wake: (() => void) | null = null;
  channel.onmessage = () => { wake?.(); };
  // Without a listener reference the channel would keep the thread alive forever.
  (channel as unknown as { unref?: () => void }).unref?.();

  function readAfter(after: number): LogEntry[] {
    const entries: LogEntry[] = [];
    let budget = maxBytes;
    // lmdb-js copies each value out of the map, so a record outlives the read.
    for (const { key, value } of store.log.getRange({ start: after + 1 })) {
      entries.push(recordEntry(key as number, value, codec.decode, codec.projects, codec.keys));
      budget -= value.length;
      if (budget <= 0) break;
    }
    return entries;
  }

  function waitForMore(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); wake = null; resolve(); };
      const timer = setTimeout(done, POLL_MS);
      wake = done;
      signal.addEventListener('abort', done);
    });
  }

  return {
    id: LMDB_LOG_ID,
    async consume(after, handle, signal) {
      let position = after;
      while (!signal.aborted) {
        const entries = readAfter(position);
        if (entries.length === 0) {
          await waitForMore(signal);
          continue;
        }
        await handle(entries);
        position = entries[entries.length - 1].seq;
      }
    },
    async lastSeq() {
      return newestSeq(store);
    },
    async firstSeq() {
      return oldestSeq(store);
    },
    async close() {
      channel.close();
    },
  };
}
