// A KV bucket as the features use it: JetStream's KV with NATS (./nats.ts), a map in this
// process's memory embedded (./memory-kv.ts). Both answer alike: revisions per write,
// `create` refused while the key exists, `update` refused unless it names the revision the
// key holds, entries gone `ttlMs` after their last write.
import { KvWatchInclude, type KV, type KvEntry as NatsKvEntry } from 'nats';

export interface KvEntry {
  key: string;
  value: Uint8Array;
  revision: number;
  // When it was written (the server's clock with NATS): every node reads the same time.
  created: Date;
  operation: 'PUT' | 'DEL' | 'PURGE';
}

export interface KvWatch extends AsyncIterable<KvEntry> {
  stop(): void;
}

export interface KvView {
  readonly bucket: string;
  // The bucket's TTL as it exists (0: entries never expire), not the one it would be made with.
  readonly ttlMs: number;
  // Resolve with the revision written.
  create(key: string, value: Uint8Array): Promise<number>;
  update(key: string, value: Uint8Array, revision: number): Promise<number>;
  put(key: string, value: Uint8Array): Promise<number>;
  get(key: string): Promise<KvEntry | null>;
  // With `previousSeq`, only while the key holds that revision.
  delete(key: string, opts?: { previousSeq?: number }): Promise<void>;
  keys(): Promise<AsyncIterable<string>>;
  // Every key's current value, then each write as it happens; `updatesOnly` skips the
  // current values, `headersOnly` the values of the writes.
  watch(opts?: { updatesOnly?: boolean; headersOnly?: boolean }): Promise<KvWatch>;
}

// JetStream's answer to a write naming a revision the key no longer holds (or a create of a
// key that exists): the server refused it, as opposed to a write that failed to reach it.
const WRONG_LAST_SEQUENCE = 10071;

export class RevisionRefusedError extends Error {}

export function isRefused(err: unknown): boolean {
  return err instanceof RevisionRefusedError ||
    (err as { api_error?: { err_code?: number } } | null)?.api_error?.err_code === WRONG_LAST_SEQUENCE;
}

// JetStream's KV behind the view.
export async function natsKv(kv: KV, bucket: string): Promise<KvView> {
  const ttlMs = (await kv.status()).ttl;
  const entry = (e: NatsKvEntry): KvEntry => ({ key: e.key, value: e.value, revision: e.revision, created: e.created, operation: e.operation });
  return {
    bucket,
    ttlMs,
    create: (key, value) => kv.create(key, value),
    update: (key, value, revision) => kv.update(key, value, revision),
    put: (key, value) => kv.put(key, value),
    async get(key) {
      const e = await kv.get(key);
      return e && entry(e);
    },
    delete: (key, opts) => kv.delete(key, opts),
    keys: () => kv.keys(),
    async watch(opts = {}) {
      const it = await kv.watch({
        key: '>', headers_only: opts.headersOnly ?? false, include: opts.updatesOnly ? KvWatchInclude.UpdatesOnly : KvWatchInclude.LastValue,
      });
      return {
        stop: () => it.stop(),
        async *[Symbol.asyncIterator]() {
          for await (const e of it) yield entry(e);
        },
      };
    },
  };
}
