// The rows of one project in a table keyed [project_id, id] with ids from 1 (insights,
// exports, dashboards and their tiles, subscriptions), in id order.
import type { Database } from 'lmdb';

export function projectRows<V>(db: Database<unknown, [number, number]>, projectId: number): V[] {
  return [...db.getRange({ start: [projectId, 1], end: [projectId, Number.MAX_SAFE_INTEGER] })].map((e) => e.value as V);
}
