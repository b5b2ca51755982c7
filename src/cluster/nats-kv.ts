// JetStream's KV behind the cluster's KV view (./kv.ts). Apart from it, so that a process
// or thread without NATS never loads the client.
import { KvWatchInclude, type KV, type KvEntry as NatsKvEntry } from 'nats';
import type { KvEntry, KvView } from './kv.js';

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
