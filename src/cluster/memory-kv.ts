// The embedded twin of a KV bucket (./kv.ts): one process, no NATS, the entries in a map.
// It answers as JetStream's KV does (revisions, refused creates and updates, delete markers,
// expiry `ttlMs` after the last write, watches), so the same leases, statuses and claims
// run on it; a restart forgets it, as the embedded service forgot these before.
import { RevisionRefusedError, type KvEntry, type KvView, type KvWatch } from './kv.js';

interface Listener {
  push(e: KvEntry): void;
  headersOnly: boolean;
}

export function memoryKv(bucket: string, ttlMs: number, now: () => number = Date.now): KvView {
  const entries = new Map<string, KvEntry>();
  const listeners = new Set<Listener>();
  let sequence = 0;

  // The entry as it stands now; one past its TTL is gone, as JetStream drops it.
  const current = (key: string): KvEntry | undefined => {
    const e = entries.get(key);
    if (e && ttlMs > 0 && now() - e.created.getTime() > ttlMs) {
      entries.delete(key);
      return undefined;
    }
    return e;
  };
  const write = (key: string, value: Uint8Array, operation: KvEntry['operation']): number => {
    const e: KvEntry = { key, value, revision: ++sequence, created: new Date(now()), operation };
    entries.set(key, e);
    for (const l of listeners) l.push(l.headersOnly ? { ...e, value: new Uint8Array(0) } : e);
    return e.revision;
  };
  const refuse = (key: string, held: number) => new RevisionRefusedError(`${bucket}.${key}: wrong last sequence: ${held}`);

  return {
    bucket,
    ttlMs,
    async create(key, value) {
      const e = current(key);
      if (e && e.operation === 'PUT') throw refuse(key, e.revision);
      return write(key, value, 'PUT');
    },
    async update(key, value, revision) {
      const held = current(key)?.revision ?? 0;
      if (held !== revision) throw refuse(key, held);
      return write(key, value, 'PUT');
    },
    async put(key, value) {
      return write(key, value, 'PUT');
    },
    async get(key) {
      return current(key) ?? null;
    },
    async delete(key, opts = {}) {
      const held = current(key)?.revision ?? 0;
      if (opts.previousSeq !== undefined && held !== opts.previousSeq) throw refuse(key, held);
      write(key, new Uint8Array(0), 'DEL');
    },
    async keys() {
      const live = [...entries.keys()].filter((k) => current(k)?.operation === 'PUT');
      return (async function* () { yield* live; })();
    },
    async watch(opts = {}): Promise<KvWatch> {
      const queue: KvEntry[] = [];
      let wake: (() => void) | null = null;
      let stopped = false;
      const listener: Listener = {
        headersOnly: opts.headersOnly ?? false,
        push(e) {
          queue.push(e);
          wake?.();
        },
      };
      if (!opts.updatesOnly) for (const k of [...entries.keys()]) { const e = current(k); if (e?.operation === 'PUT') listener.push(e); }
      listeners.add(listener);
      return {
        stop() {
          stopped = true;
          listeners.delete(listener);
          wake?.();
        },
        async *[Symbol.asyncIterator]() {
          while (!stopped) {
            const e = queue.shift();
            if (e) {
              yield e;
              continue;
            }
            await new Promise<void>((resolve) => { wake = resolve; });
            wake = null;
          }
        },
      };
    },
  };
}
