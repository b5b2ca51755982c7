// Runs one consumer over a log reader until told to stop: works out where it starts
// (its stored position; else the log's beginning or end, as it declares; a gap the log
// no longer holds goes to its backfill or stops it loudly), then applies entries through
// the ladder, never past the consumer it follows.
import { setTimeout as delay } from 'node:timers/promises';
import type { Cluster } from '../../cluster/index.js';
import { releaseEncodeBuffer } from '../../store/index.js';
import type { LogTables } from '../tables.js';
import type { LogEntry, LogReader } from '../types.js';
import { consumerPosition, rethrowUnlessWritable } from './positions.js';
import { applyIsolating, SILENT, type ConsumerReports } from './ladder.js';
import { ConsumerStopped, LogGapError, type ConsumerContext, type ConsumerDefinition, type ConsumerHandler } from './types.js';

// How often a consumer waiting for the one it follows looks at that one's position.
const FOLLOW_POLL_MS = 50;
// A record at least this large may have made the thread's value encoder grow its buffer
// for good: after applying it, the buffer is given back (src/store/encode-buffer.ts).
const LARGE_RECORD_BYTES = 1024 * 1024;

function hasLargeRecord(entries: readonly LogEntry[]): boolean {
  for (const e of entries) if (e.record !== undefined && e.record.byteLength >= LARGE_RECORD_BYTES) return true;
  return false;
}

export interface RunOptions<S, T> {
  store: T & LogTables;
  reader: LogReader;
  signal: AbortSignal;
  settings: S;
  now?: () => number;
  reports?: ConsumerReports;
  // The thread's cluster handle (src/log/consumers/thread.ts).
  cluster?: Cluster;
}

export function consumerContext<S, T>(
  name: string, store: T & LogTables, logId: string, settings: S, now: () => number = Date.now, cluster?: Cluster,
  stopping: AbortSignal = new AbortController().signal,
): ConsumerContext<S, T> {
  const position = consumerPosition(store, name, logId);
  return {
    name, store, logId, settings, position, now, cluster, stopping,
    // A stop is rethrown at every rung of the ladder: the batch is not split or set aside.
    rethrowUnlessWritable: (err) => (err instanceof ConsumerStopped ? Promise.reject(err) : rethrowUnlessWritable(store, position.key, err)),
  };
}

// The position reading starts after. Records a consumer that starts at the end there on
// its first run (the service records it earlier, at registration: ./registry.ts).
export async function startingPosition<S>(ctx: ConsumerContext<S>, startsAt: 'beginning' | 'end', handler: ConsumerHandler, reader: LogReader): Promise<number> {
  let position = ctx.position.read();
  if (position === undefined && startsAt === 'end') {
    position = await reader.lastSeq();
    await ctx.position.commit(position);
  }
  position ??= 0;
  const firstHeld = await reader.firstSeq();
  if (firstHeld <= position + 1) return position;
  const missing = `records ${position + 1} to ${firstHeld - 1}`;
  if (!handler.backfill) {
    throw new LogGapError(`consumer ${ctx.name}: the log ${reader.id} no longer holds ${missing}, which it has not applied, and it declares no backfill`);
  }
  const through = await handler.backfill({ after: position, firstHeld });
  if (through < firstHeld - 1) throw new LogGapError(`consumer ${ctx.name}: its backfill reached ${through}, short of ${missing}`);
  if (ctx.position.read() !== through) await ctx.position.commit(through);
  return through;
}

// Ends early on a stop, including one that came before it began (node's timer rejects at once
// then; a stop during the await before a linger had waited the linger out: seen in CI).
const sleep = (ms: number, signal: AbortSignal): Promise<void> => delay(ms, undefined, { signal }).catch(() => undefined);

export async function runConsumer<S, T>(definition: ConsumerDefinition<S, T>, opts: RunOptions<S, T>): Promise<void> {
  const { store, reader, signal } = opts;
  const reports = opts.reports ?? SILENT;
  const ctx = consumerContext(definition.name, store, reader.id, opts.settings, opts.now, opts.cluster, signal);
  const handler = await definition.open(ctx);
  try {
    const start = await startingPosition(ctx, definition.startsAt, handler, reader);
    const leader = definition.follows === undefined ? null : consumerPosition(store, definition.follows, reader.id);
    const apply = async (entries: LogEntry[]) => {
      await applyIsolating(handler, entries, ctx, reports);
      if (hasLargeRecord(entries)) releaseEncodeBuffer(store.root);
    };
    const applyAll = leader === null ? apply : async (entries: LogEntry[]) => {
      // Only what the leader has applied; the rest once it has.
      let rest = entries;
      while (rest.length > 0 && !signal.aborted) {
        const reached = leader.read() ?? 0;
        let n = 0;
        while (n < rest.length && rest[n].seq <= reached) n++;
        if (n === 0) {
          await sleep(FOLLOW_POLL_MS, signal);
          continue;
        }
        await apply(rest.slice(0, n));
        rest = rest.slice(n);
      }
    };
    const lingerMs = definition.lingerMs?.(opts.settings) ?? 0;
    await reader.consume(start, lingerMs === 0 ? applyAll : async (entries) => {
      await applyAll(entries);
      // Keeping up (less is waiting than this batch held): let the next batch gather.
      const waiting = (await reader.lastSeq()) - entries[entries.length - 1].seq;
      if (waiting < entries.length) await sleep(lingerMs, signal);
    }, signal);
  } catch (err) {
    // A batch left part way because the consumer is stopping: a stop, not a failure.
    if (!(err instanceof ConsumerStopped && signal.aborted)) throw err;
  } finally {
    await handler.close?.();
  }
}
