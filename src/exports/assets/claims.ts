// Claiming an export's render, so that it runs once. A render is a side effect (a query, a
// file, a recorded outcome): with several nodes applying the same management state, every
// node sees a pending asset, and only one may render it (DESIGN.md: side effects claimed
// once across the cluster). A claim is a lease of the cluster's (src/cluster/leases.ts) on a
// key per asset: across a NATS cluster one node at a time holds it; embedded the one node
// does, so a render already running here (one the request started, or a resume) is not
// started twice.
import type { Leases } from '../../cluster/index.js';

export interface AssetKey {
  project_id: number;
  id: number;
}

export interface RenderClaims {
  // True when this node now holds the render of the asset; false when it is held already.
  claim(asset: AssetKey): Promise<boolean>;
  // The render's outcome is recorded (or it was interrupted): the claim ends.
  release(asset: AssetKey): void;
}

const keyOf = (a: AssetKey) => `${a.project_id}.${a.id}`;

// `onError`: told when a render's claim is lost (its renewal refused or failed).
export function leaseClaims(leases: Leases, onError?: (err: Error) => void): RenderClaims {
  return {
    async claim(asset) {
      return (await leases.acquire(keyOf(asset), { lost: onError })) !== null;
    },
    release(asset) {
      void leases.holding(keyOf(asset))?.release();
    },
  };
}
