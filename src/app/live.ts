// The live events tail: one reader of the event log, from its end, for as long as any
// browser watches; each event goes to the watchers of its project whose filters it
// passes. Read from the log, the tail shows events as capture accepted them, in the order
// they arrived, before the event store has applied them. With nobody watching, nothing is
// read (a busy node pays for the tail only while someone looks).
import type { CapturedEvent, LogEntry, LogReader } from '../log/types.js';
import type { Logger } from '../logger.js';

export interface LiveFilter {
  projectId: number;
  event: string | null;
  distinctId: string | null;
}

export interface LiveEvent {
  uuid: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

interface Watcher {
  filter: LiveFilter;
  send(events: LiveEvent[]): void;
}

export interface LiveTailOptions {
  openReader(): Promise<LogReader>;
  // Where the log ends now: a watcher sees what is appended after it subscribed.
  lastSeq(): number;
  log: Logger;
  // After a reader failed, how long before it is opened again.
  retryMs?: number;
}

// A watcher falling this far behind in one batch gets the newest ones only.
const MOST_PER_BATCH = 200;

const toLive = (e: CapturedEvent): LiveEvent => ({ uuid: e.uuid, event: e.event, distinct_id: e.distinct_id, timestamp: e.timestamp, properties: e.properties });

export function createLiveTail({ openReader, lastSeq, log, retryMs = 1000 }: LiveTailOptions) {
  const watchers = new Set<Watcher>();
  let running: { abort: AbortController; started: Promise<void> } | null = null;

  function deliver(entries: LogEntry[]): void {
    const out = new Map<Watcher, LiveEvent[]>();
    for (const entry of entries) {
      const projects = entry.projects?.() ?? null;
      if (projects && ![...watchers].some((w) => projects.includes(w.filter.projectId))) continue;
      for (const e of entry.events) {
        for (const w of watchers) {
          const f = w.filter;
          if (e.project_id !== f.projectId || (f.event !== null && e.event !== f.event) || (f.distinctId !== null && e.distinct_id !== f.distinctId)) continue;
          let list = out.get(w);
          if (!list) out.set(w, (list = []));
          list.push(toLive(e));
        }
      }
    }
    for (const [w, list] of out) w.send(list.length > MOST_PER_BATCH ? list.slice(-MOST_PER_BATCH) : list);
  }

  // Reads from the log's end until nobody watches; a failed read starts again from the end.
  function start(): { abort: AbortController; started: Promise<void> } {
    const abort = new AbortController();
    let ready!: () => void;
    const started = new Promise<void>((r) => { ready = r; });
    (async () => {
      while (!abort.signal.aborted) {
        let reader: LogReader | null = null;
        try {
          reader = await openReader();
          const from = lastSeq();
          ready();
          await reader.consume(from, async (entries) => deliver(entries), abort.signal);
        } catch (err) {
          ready();
          log.warn('live events tail', { error: (err as Error).message });
          await new Promise((r) => setTimeout(r, retryMs));
        } finally {
          await reader?.close().catch(() => {});
        }
      }
    })();
    return { abort, started };
  }

  return {
    // Resolves once the tail reads from a position this watcher is past: what is appended
    // from then on reaches `send`. The returned function ends the watch.
    async watch(filter: LiveFilter, send: (events: LiveEvent[]) => void): Promise<() => void> {
      const watcher: Watcher = { filter, send };
      watchers.add(watcher);
      running ??= start();
      await running.started;
      return () => {
        watchers.delete(watcher);
        if (watchers.size === 0 && running) {
          running.abort.abort();
          running = null;
        }
      };
    },
    close(): void {
      watchers.clear();
      running?.abort.abort();
      running = null;
    },
  };
}

export type LiveTail = ReturnType<typeof createLiveTail>;
