// Reads of the stored hog functions (main LMDB environment). Writes go through the
// management write path (./commands.ts).
import type { DestinationsTables } from './tables.js';
import type { StoredHogFunction } from './types.js';

export function projectHogFunctions(store: DestinationsTables, projectId: number): StoredHogFunction[] {
  const out: StoredHogFunction[] = [];
  for (const { value } of store.hogFunctions.getRange({ start: [projectId, ''], end: [projectId + 1, ''] })) {
    out.push(value as StoredHogFunction);
  }
  return out;
}

export function hogFunctionById(store: DestinationsTables, projectId: number, id: string): StoredHogFunction | undefined {
  return store.hogFunctions.get([projectId, id]) as StoredHogFunction | undefined;
}

export function hogFunctionsVersion(store: DestinationsTables, projectId: number): number {
  return store.hogFunctionVersions.get(projectId) ?? 0;
}

/** Every stored function's id (deleted ones too: their logs and metrics are kept as long). */
export function allHogFunctionIds(store: DestinationsTables): string[] {
  return [...store.hogFunctions.getKeys()].map((k) => k[1]);
}

/** Functions per template id, over every project (the template list's order). */
export function templateUsage(store: DestinationsTables): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { value } of store.hogFunctions.getRange()) {
    const fn = value as StoredHogFunction;
    if (fn.template_id && !fn.deleted) counts.set(fn.template_id, (counts.get(fn.template_id) ?? 0) + 1);
  }
  return counts;
}
