// Which snapshots a node may restore, which to keep, and how far the control stream may be
// cut (docs/decisions/0033). Pure: the streams' state and the snapshots' metadata in,
// decisions out.

// The layout of a snapshot: the main LMDB environment of src/store/env.ts, copied whole.
// A node restores only a snapshot of the format it writes.
export const SNAPSHOT_FORMAT = 1;

export interface SnapshotMeta {
  name: string;
  format: number;
  created: string;
  // Bytes of the copied environment.
  size: number;
  // The control stream (its id: name and creation time) and the sequence the copy has applied.
  control: { stream: string; seq: number };
  // The event log (its id) and the position the copy's event store has applied.
  events: { log: string; position: number };
  // The node that took it, and how long the copy took there.
  node: string;
  took_ms: number;
}

// The two streams as they stand now (null: the stream does not exist).
export interface StreamsNow {
  control: { id: string; first: number; last: number; purgeable: boolean } | null;
  events: { id: string; first: number } | null;
}

// A snapshot is usable when it is of this format and both streams it follows are the ones
// that exist now and still hold every message after its positions.
export function usable(meta: SnapshotMeta, now: StreamsNow): boolean {
  return meta.format === SNAPSHOT_FORMAT &&
    now.control !== null && meta.control.stream === now.control.id && now.control.first <= meta.control.seq + 1 &&
    now.events !== null && meta.events.log === now.events.id && now.events.first <= meta.events.position + 1;
}

const newestFirst = (a: SnapshotMeta, b: SnapshotMeta) => b.created.localeCompare(a.created) || b.control.seq - a.control.seq;

// The snapshot a node with an empty data dir restores, if any.
export function newestUsable(metas: readonly SnapshotMeta[], now: StreamsNow): SnapshotMeta | null {
  return [...metas].sort(newestFirst).find((m) => usable(m, now)) ?? null;
}

export interface Retention {
  keep: SnapshotMeta[];
  remove: SnapshotMeta[];
  // Control stream messages up to and including this sequence are no longer needed by any
  // kept snapshot (0: none may be cut).
  purgeThrough: number;
}

// Keeps the newest `keep` usable snapshots and removes the others (an unusable one never
// becomes usable again). Once there are `keep` of them, the control stream may lose what
// precedes the oldest: a node restoring any kept snapshot replays only what follows it,
// and the history behind the newest is the margin for a node briefly offline (it catches
// up by replay) or joining while a snapshot is taken (it restored one still kept). Before
// that, nothing is cut: a cluster's first snapshot leaves nodes replaying from the first
// command (joining as it was taken) their history.
export function retention(metas: readonly SnapshotMeta[], now: StreamsNow, keep: number): Retention {
  const sorted = [...metas].sort(newestFirst);
  const kept = sorted.filter((m) => usable(m, now)).slice(0, keep);
  const remove = sorted.filter((m) => !kept.includes(m));
  const purgeThrough = kept.length < keep ? 0 : Math.min(...kept.map((m) => m.control.seq));
  return { keep: kept, remove, purgeThrough };
}
