// The person writes that are not events: a person deleted through the API, and the flag
// hash keys /decide records for experience continuity. They travel the event log as
// operations (docs/decisions/0032) and the event store applies them in log order, inside
// the transaction that applies the events around them (./step.ts operate), so every node
// removes the same rows whatever it had applied when the request was taken. Everything
// they need is in the operation; nothing here reads the clock or draws a random value.
import type { PersonsTables } from './tables.js';
import type { LogOperation } from '../log/types.js';
import { readByUuid, removePerson, rowPersonUuid } from './person-rows.js';
import { withPrefix } from '../store/index.js';
import { personUuid } from './person-uuid.js';
import { bumpPersonsGeneration } from './person-cache.js';

export const DELETE_PERSON = 'persons.delete';
export const WRITE_HASH_KEY_OVERRIDES = 'persons.write_hash_key_overrides';

export interface DeletePerson {
  uuid: string;
}

export interface HashKeyOverrides {
  distinct_ids: string[];
  flag_keys: string[];
  hash_key: string;
}

// Removes a person, its distinct ids and its overrides; its events stay.
export function deletePersonRows(store: PersonsTables, projectId: number, uuid: string): void {
  // The person as it stands here and now: ids added since the request read it go too.
  const current = readByUuid(store, projectId, uuid);
  if (!current) return;
  removePerson(store, projectId, current, false);
  // Its ids may start new persons, under the uuids of persons merged into it long ago:
  // those must not keep following the old merge.
  for (const id of current.distinct_ids) store.personRedirects.remove([projectId, personUuid(projectId, id)]);
  for (const { key } of [...withPrefix(store.hashKeyOverrides, [projectId, current.uuid])]) {
    store.hashKeyOverrides.remove(key as [number, string, string]);
  }
  store.personIds.remove([projectId, current.id]);
  bumpPersonsGeneration(store);
}

// Records `hash_key` as the hash key of each flag for the persons of `distinct_ids`, where
// that person has none for the flag yet; the first hash key a person gets for a flag
// stays. Distinct ids without a person are skipped. True when anything was written.
export function putHashKeyOverrides(store: PersonsTables, projectId: number, o: HashKeyOverrides): boolean {
  let written = false;
  for (const distinctId of o.distinct_ids) {
    const row = store.personDistinctIds.get([projectId, distinctId]);
    if (!row) continue;
    const person = rowPersonUuid(row);
    for (const flagKey of o.flag_keys) {
      if (store.hashKeyOverrides.get([projectId, person, flagKey]) !== undefined) continue;
      store.hashKeyOverrides.put([projectId, person, flagKey], o.hash_key);
      written = true;
    }
  }
  return written;
}

// Applies one operation to what is stored (the person step writes what it holds first).
// A kind this version does not know throws: the consumer sets it aside, on every node of
// that version alike.
export function applyPersonOperation(store: PersonsTables, op: LogOperation): void {
  switch (op.kind) {
    case DELETE_PERSON:
      deletePersonRows(store, op.project_id, (op.payload as DeletePerson).uuid);
      return;
    case WRITE_HASH_KEY_OVERRIDES:
      putHashKeyOverrides(store, op.project_id, op.payload as HashKeyOverrides);
      return;
    default:
      throw new Error(`log operation: unknown kind ${op.kind}`);
  }
}
