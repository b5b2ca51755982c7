// Many persons written straight into a store, as the consumer lays them out, for tests
// and benchmarks of reads that scan them. Person i has uuid `syntheticUuid(i)`, distinct
// id `user-<i>`, email `user<i>@example.com`, a name and 30 more properties.
import type { Store } from '../../src/tables.js';
import { writePerson } from '../../src/persons/person-rows.js';

export const syntheticUuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

// Persons 1 to `count` (numeric ids too), in one transaction.
export function writeSyntheticPersons(store: Store, projectId: number, count: number): Promise<unknown> {
  return store.root.transaction(() => {
    for (let i = 1; i <= count; i++) {
      const properties: Record<string, unknown> = { email: `user${i}@example.com`, name: `User ${i}` };
      for (let k = 0; k < 30; k++) properties[`prop_${k}`] = `value-${k}-${i % 97}`;
      const uuid = syntheticUuid(i);
      writePerson(store, projectId, { id: i, uuid, created_at: '2026-01-01T00:00:00.000Z', properties, is_identified: true, distinct_ids: [`user-${i}`] }, 0);
      store.personIds.put([projectId, i], uuid);
    }
  });
}
