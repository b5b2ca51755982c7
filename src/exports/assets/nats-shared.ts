// Exports across a NATS cluster (docs/decisions/0031, "Work done once"): every node applies
// the same assets, so a file and a render must be shared too.
// - Files: the rendering node puts the file's bytes in a JetStream object store
//   (HEDGEROW_EXPORTS), named by their SHA-256 as on disk, before it records the outcome;
//   a node without the file on its disk reads it from there. The sweep deletes objects no
//   asset names once they are older than its grace period, on every node (deleting is
//   idempotent; the grace covers a render between its put and its recorded outcome).
// - Renders: a claim per asset, a key created in a KV bucket whose entries expire
//   (HEDGEROW_EXPORT_CLAIMS), renewed by its holder while it renders and deleted when the
//   outcome is recorded. A node holding none renders nothing; one that died lets its claims
//   lapse after the TTL.
// The embedded service uses neither (./files.ts, ./claims.ts).
import { connect, StorageType, type KV, type NatsConnection, type ObjectStore } from 'nats';
import type { StoredContent } from '../types.js';
import type { AssetKey, RenderClaims } from './claims.js';

export const EXPORTS_BUCKET = 'HEDGEROW_EXPORTS';
export const EXPORT_CLAIMS_BUCKET = 'HEDGEROW_EXPORT_CLAIMS';
const CLAIM_TTL_MS = 30_000;
const HASH_NAME = /^[0-9a-f]{64}$/;

// Export files kept where every node reads them.
export interface SharedFiles {
  put(content: StoredContent, bytes: Uint8Array): Promise<void>;
  // The bytes, or null when no object has that name.
  get(content: StoredContent): Promise<Buffer | null>;
  // Deletes the objects no asset in `keep` names, older than `graceMs` at `now`; returns how many.
  collect(keep: ReadonlySet<string>, now: Date, graceMs: number): Promise<number>;
}

export interface NatsExports {
  files: SharedFiles;
  claims: RenderClaims;
  close(): Promise<void>;
}

export interface NatsExportsOptions {
  url: string;
  node: string;
  claimTtlMs?: number;
  onError?(err: Error): void;
}

const text = new TextEncoder();
const keyOf = (a: AssetKey) => `${a.project_id}.${a.id}`;

export async function openNatsExports(opts: NatsExportsOptions): Promise<NatsExports> {
  const ttlMs = opts.claimTtlMs ?? CLAIM_TTL_MS;
  const nc: NatsConnection = await connect({ servers: opts.url, name: 'hedgerow-exports', maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  let store: ObjectStore;
  let kv: KV;
  try {
    const js = nc.jetstream();
    store = await js.views.os(EXPORTS_BUCKET, { storage: StorageType.File, description: 'hedgerow export files by SHA-256' });
    kv = await js.views.kv(EXPORT_CLAIMS_BUCKET, { ttl: ttlMs, history: 1, storage: StorageType.File });
  } catch (err) {
    await nc.close();
    throw err;
  }

  const files: SharedFiles = {
    async put(content, bytes) {
      const existing = await store.info(content.sha256);
      if (existing && !existing.deleted && existing.size === content.size) return;
      await store.putBlob({ name: content.sha256 }, bytes);
    },
    async get(content) {
      if (!HASH_NAME.test(content.sha256)) return null;
      const bytes = await store.getBlob(content.sha256);
      return bytes && Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    },
    async collect(keep, now, graceMs) {
      let removed = 0;
      for (const info of await store.list()) {
        if (info.deleted || keep.has(info.name)) continue;
        if (Date.parse(info.mtime) > now.getTime() - graceMs) continue;
        try {
          await store.delete(info.name);
          removed++;
        } catch {
          // Deleted by another node's sweep meanwhile.
        }
      }
      return removed;
    },
  };

  // Claims this node holds: their revision, renewed every third of the TTL (a renewal in
  // flight is waited for before the claim is deleted, so the delete names its revision).
  interface Held { revision: number; timer: NodeJS.Timeout; renewing: Promise<void> }
  const held = new Map<string, Held>();
  const value = () => text.encode(JSON.stringify({ node: opts.node, at: Date.now() }));
  const renew = (claim: Held, key: string) => {
    claim.renewing = claim.renewing.then(() => kv.update(key, value(), claim.revision)).then(
      (revision) => { claim.revision = revision; },
      (err: unknown) => opts.onError?.(err instanceof Error ? err : new Error(String(err))),
    );
  };
  const drop = async (key: string, claim: Held) => {
    clearInterval(claim.timer);
    await claim.renewing;
    await kv.delete(key, { previousSeq: claim.revision }).catch(() => undefined);
  };
  const releasing = new Set<Promise<void>>();
  const claims: RenderClaims = {
    async claim(asset) {
      const key = keyOf(asset);
      if (held.has(key)) return false;
      let revision: number;
      try {
        revision = await kv.create(key, value());
      } catch {
        return false; // Held by another node (or NATS unreachable: the asset stays pending).
      }
      const claim: Held = { revision, timer: setInterval(() => renew(claim, key), ttlMs / 3), renewing: Promise.resolve() };
      claim.timer.unref();
      held.set(key, claim);
      return true;
    },
    release(asset) {
      const key = keyOf(asset);
      const claim = held.get(key);
      if (!claim) return;
      held.delete(key);
      const done = drop(key, claim);
      releasing.add(done);
      void done.finally(() => releasing.delete(done));
    },
  };

  return {
    files,
    claims,
    async close() {
      const dropping = [...held].map(([key, claim]) => drop(key, claim));
      held.clear();
      await Promise.all([...dropping, ...releasing]);
      await nc.drain().catch(() => nc.close());
    },
  };
}
