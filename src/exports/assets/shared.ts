// Exports across a cluster (docs/decisions/0031, "Work done once"; 0036): every node applies
// the same assets, so a file and a render must be shared too. Both come from the cluster
// handle, with NATS or its embedded twin alike.
// - Files: the rendering node puts the file's bytes in a JetStream object store
//   (HEDGEROW_EXPORTS), named by their SHA-256 as on disk, before it records the outcome;
//   a node without the file on its disk reads it from there. The sweep deletes objects no
//   asset names once they are older than its grace period, on every node (deleting is
//   idempotent; the grace covers a render between its put and its recorded outcome).
//   Embedded there is no such store (the asset table keeps none): the node's disk is the only
//   copy (./files.ts).
// - Renders: a claim per asset, a lease (src/cluster/leases.ts) on a key of the KV bucket
//   HEDGEROW_EXPORT_CLAIMS, renewed by its holder while it renders and given up when the
//   outcome is recorded (./claims.ts). A node holding none renders nothing; one that died lets
//   its claims lapse after the TTL, and the other nodes' periodic resume takes them over
//   (./resume.ts). Embedded the one node always gets them, and there is no periodic resume.
import type { Cluster, ObjectsView } from '../../cluster/index.js';
import type { StoredContent } from '../types.js';
import { leaseClaims, type RenderClaims } from './claims.js';

const HASH_NAME = /^[0-9a-f]{64}$/;

// Export files kept where every node reads them.
export interface SharedFiles {
  put(content: StoredContent, bytes: Uint8Array): Promise<void>;
  // The bytes, or null when no object has that name.
  get(content: StoredContent): Promise<Buffer | null>;
  // Deletes the objects no asset in `keep` names, older than `graceMs` at `now`; returns how many.
  collect(keep: ReadonlySet<string>, now: Date, graceMs: number): Promise<number>;
}

export interface SharedExports {
  // Undefined embedded: the node's own disk holds every file.
  files?: SharedFiles;
  claims: RenderClaims;
  // The claims bucket's TTL: a render whose node died is free again this long after its
  // last renewal; null embedded, where no other node can die holding one.
  claimTtlMs: number | null;
  close(): Promise<void>;
}

// `onError`: told when a render's claim is lost. The claims' TTL is the bucket's (the
// timings' exportClaimTtlMs, HEDGEROW_EXPORT_CLAIM_TTL_MS, when this node made it).
export async function openSharedExports(cluster: Cluster, opts: { onError?(err: Error): void } = {}): Promise<SharedExports> {
  const store = await cluster.objects('exports');
  const leases = await cluster.leases('exportClaims');
  return {
    files: store ? sharedFiles(store) : undefined,
    claims: leaseClaims(leases, opts.onError),
    claimTtlMs: leases.shared ? leases.ttlMs : null,
    close: () => leases.close(),
  };
}

function sharedFiles(store: ObjectsView): SharedFiles {
  return {
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
}
