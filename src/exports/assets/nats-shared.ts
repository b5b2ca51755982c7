// Exports across a NATS cluster (docs/decisions/0031, "Work done once"): every node applies
// the same assets, so a file and a render must be shared too.
// - Files: the rendering node puts the file's bytes in a JetStream object store
//   (HEDGEROW_EXPORTS), named by their SHA-256 as on disk, before it records the outcome;
//   a node without the file on its disk reads it from there. The sweep deletes objects no
//   asset names once they are older than its grace period, on every node (deleting is
//   idempotent; the grace covers a render between its put and its recorded outcome).
// - Renders: a claim per asset, a lease (src/leases/) on a key of the KV bucket
//   HEDGEROW_EXPORT_CLAIMS, renewed by its holder while it renders and given up when the
//   outcome is recorded. A node holding none renders nothing; one that died lets its claims
//   lapse after the TTL, and the other nodes' periodic resume takes them over (./resume.ts).
// The embedded service uses neither (./files.ts, ./claims.ts).
import { StorageType, type NatsConnection, type ObjectStore } from 'nats';
import { connectNats } from '../../nats/connect.js';
import { openLeases, type Leases } from '../../leases/index.js';
import type { StoredContent } from '../types.js';
import type { AssetKey, RenderClaims } from './claims.js';

export const EXPORTS_BUCKET = 'HEDGEROW_EXPORTS';
export const EXPORT_CLAIMS_BUCKET = 'HEDGEROW_EXPORT_CLAIMS';
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
  // The claims bucket's TTL: a render whose node died is free again this long after its
  // last renewal.
  claimTtlMs: number;
  close(): Promise<void>;
}

export interface NatsExportsOptions {
  url: string;
  node: string;
  // The TTL the claims bucket is created with (an existing bucket keeps its own).
  claimTtlMs: number;
  onError?(err: Error): void;
  // Replicas of what this creates when missing (HEDGEROW_NATS_REPLICAS; 1 when omitted).
  replicas?: number;
}

const keyOf = (a: AssetKey) => `${a.project_id}.${a.id}`;

export async function openNatsExports(opts: NatsExportsOptions): Promise<NatsExports> {
  const nc: NatsConnection = await connectNats(opts.url, 'hedgerow-exports');
  let store: ObjectStore;
  let leases: Leases;
  try {
    const js = nc.jetstream();
    store = await js.views.os(EXPORTS_BUCKET, { storage: StorageType.File, replicas: opts.replicas ?? 1, description: 'hedgerow export files by SHA-256' });
    leases = await openLeases(js, { bucket: EXPORT_CLAIMS_BUCKET, ttlMs: opts.claimTtlMs, node: opts.node, replicas: opts.replicas });
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

  const claims: RenderClaims = {
    async claim(asset) {
      return (await leases.acquire(keyOf(asset), { lost: opts.onError })) !== null;
    },
    release(asset) {
      void leases.holding(keyOf(asset))?.release();
    },
  };

  return {
    files,
    claims,
    claimTtlMs: leases.ttlMs,
    async close() {
      await leases.close();
      await nc.drain().catch(() => nc.close());
    },
  };
}
