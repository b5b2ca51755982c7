// A project's group types by index as flag definitions carry them ("0" → "company");
// persons and groups own the records.
import { groupTypeMapping as groupTypes } from '../../persons/store.js';
import type { FlagsTables } from '../tables.js';
import type { PersonsTables } from '../../persons/index.js';

export function groupTypeMapping(store: FlagsTables & PersonsTables, projectId: number): Record<string, string> {
  return Object.fromEntries(groupTypes(store, projectId).map((t) => [String(t.group_type_index), t.group_type]));
}
