// The management writes to persons as commands (src/state/, docs/decisions/0015): a person
// deleted through the API, and the flag hash keys /decide records for experience
// continuity. Everything else about persons is written by the event store's consumer.
// Unlike other appliers these read state the consumer writes (a person's distinct ids),
// which another node may have applied further or less far: see 0015.
import { defineCommand, type StateWrites } from '../state/index.js';
import type { PersonRecord } from '../store/persons.js';
import { readByUuid, removePerson, rowPersonUuid } from './person-rows.js';
import { withPrefix } from './prefix.js';
import { personUuid } from './person-uuid.js';
import { bumpPersonsGeneration } from './person-cache.js';

// Removes a person, its distinct ids and its overrides; its events stay.
export const deletePersonCommand = defineCommand('persons.delete', (store, { project_id: projectId, uuid }: { project_id: number; uuid: string }): void => {
  // Read here: the consumer may have added ids since the request read the person.
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
});

export interface HashKeyOverrides {
  project_id: number;
  distinct_ids: string[];
  flag_keys: string[];
  hash_key: string;
}

// Records `hash_key` as the hash key of each flag for the persons of `distinct_ids`, where
// that person has none for the flag yet; the first hash key a person gets for a flag
// stays. Distinct ids without a person are skipped. True when anything was written.
export const writeHashKeyOverridesCommand = defineCommand('persons.write_hash_key_overrides', (store, o: HashKeyOverrides): boolean => {
  let written = false;
  for (const distinctId of o.distinct_ids) {
    const row = store.personDistinctIds.get([o.project_id, distinctId]);
    if (!row) continue;
    const person = rowPersonUuid(row);
    for (const flagKey of o.flag_keys) {
      if (store.hashKeyOverrides.get([o.project_id, person, flagKey]) !== undefined) continue;
      store.hashKeyOverrides.put([o.project_id, person, flagKey], o.hash_key);
      written = true;
    }
  }
  return written;
});

export const personCommands = [deletePersonCommand, writeHashKeyOverridesCommand];

/** Removes a person, its distinct ids and its overrides; its events stay. */
export function deletePerson(writes: StateWrites, projectId: number, person: PersonRecord): Promise<void> {
  return writes.submit(deletePersonCommand, { project_id: projectId, uuid: person.uuid });
}

/**
 * Records `hashKey` (the anonymous distinct id a request brought) as the hash key of each
 * flag for the persons of `distinctIds` that have none for it yet. Resolves once written.
 */
export function writeHashKeyOverrides(writes: StateWrites, projectId: number, distinctIds: readonly string[], flagKeys: readonly string[], hashKey: string): Promise<boolean> {
  return writes.submit(writeHashKeyOverridesCommand, { project_id: projectId, distinct_ids: [...distinctIds], flag_keys: [...flagKeys], hash_key: hashKey });
}
