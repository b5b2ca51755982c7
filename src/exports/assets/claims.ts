// Claiming an export's render, so that it runs once. A render is a side effect (a query, a
// file, a recorded outcome): with several nodes applying the same management state, every
// node sees a pending asset, and only one may render it (DESIGN.md: side effects claimed
// once across the cluster). The embedded service is one node: a claim is held in this
// process, so a render already running here (one the request started, or a resume) is not
// started twice. A cluster-wide implementation plugs in here.
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

export function createLocalClaims(): RenderClaims {
  const held = new Set<string>();
  const keyOf = (a: AssetKey) => `${a.project_id}/${a.id}`;
  return {
    async claim(asset) {
      const key = keyOf(asset);
      if (held.has(key)) return false;
      held.add(key);
      return true;
    },
    release: (asset) => { held.delete(keyOf(asset)); },
  };
}
