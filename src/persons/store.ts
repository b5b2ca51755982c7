// Reading persons and groups, for the API and for other domains. The lookups flag
// evaluation needs on its hot path are single reads:
//   personByDistinctId   distinct id → {person_uuid, person_id, properties}; one read
//                        unless the person has more than 8 distinct ids (then two)
//   groupProperties      (group type index, group key) → properties
//   groupTypeMapping     project → its group types (index ↔ name)
// Experience continuity keeps flag hash key overrides per person; the person consumer
// moves them when it merges two persons (src/persons/batch.ts), /decide records them
// through the write path (src/persons/commands.ts).
import type { DistinctIdRecord, GroupRecord, GroupTypeRecord, PersonRecord, PersonRow, PersonsTables, Properties } from './tables.js';
import { isWholePerson, readByDistinctId, readByUuid } from './person-rows.js';
import { withPrefix } from '../store/index.js';
import { MAX_GROUP_KEY_LENGTH } from './groups.js';
import { limitDistinctId } from '../capture/distinct-id.js';

// Merges chain (A into B, later B into C); a longer chain than this would be a bug.
const MAX_REDIRECTS = 64;

// Ids and keys longer than ingestion keeps name no person or group, and would not fit
// an LMDB key (1,978 bytes): looked up, they are simply not found (docs/decisions/0028).
const storableDistinctId = (id: string) => limitDistinctId(id) === id;

/** The person `distinctId` belongs to and its properties: one read. */
export function personByDistinctId(store: PersonsTables, projectId: number, distinctId: string): DistinctIdRecord | undefined {
  const p = personRecordByDistinctId(store, projectId, distinctId);
  return p && { person_uuid: p.uuid, person_id: p.id, properties: p.properties };
}

/** The whole person `distinctId` belongs to (distinct ids, creation, identification). */
export function personRecordByDistinctId(store: PersonsTables, projectId: number, distinctId: string): PersonRecord | undefined {
  return storableDistinctId(distinctId) ? readByDistinctId(store, projectId, distinctId) : undefined;
}

/**
 * A distinct id's row as stored, for a reader that keeps the bytes of what it last read and
 * decodes only what changed (the insights loader): lmdb-js's read buffer, valid until the
 * store's next read (copy it to keep it); undefined when there is none.
 */
export function personRowBytes(store: PersonsTables, projectId: number, distinctId: string): Buffer | undefined {
  const bytes = storableDistinctId(distinctId) ? store.personDistinctIds.getBinaryFast([projectId, distinctId]) : undefined;
  // lmdb-js hands out one large buffer whose `length` property it sets to the value's size
  // (as a typed array it is longer): a view of the value alone.
  return bytes === undefined ? undefined : bytes.subarray(0, bytes.length);
}

/**
 * The person a row's bytes (personRowBytes) hold whole, as personRecordByDistinctId reads it;
 * null when the row refers to a person kept once under its uuid (more than eight distinct
 * ids): equal bytes then say nothing of the person, which personRecordByDistinctId reads.
 */
export function wholePersonOfRow(store: PersonsTables, bytes: Uint8Array): PersonRecord | null {
  const row = (store.personDistinctIds as unknown as { decoder: { decode(b: Uint8Array): PersonRow } }).decoder.decode(bytes);
  return isWholePerson(row) ? row : null;
}

export function personByUuid(store: PersonsTables, projectId: number, uuid: string): PersonRecord | undefined {
  return readByUuid(store, projectId, uuid);
}

export function personById(store: PersonsTables, projectId: number, id: number): PersonRecord | undefined {
  const uuid = store.personIds.get([projectId, id]);
  return uuid === undefined ? undefined : readByUuid(store, projectId, uuid);
}

/** The person an event's `person_id` stands for now: follows merges to the survivor. */
export function resolvePersonUuid(store: PersonsTables, projectId: number, uuid: string): string {
  let current = uuid;
  for (let i = 0; i < MAX_REDIRECTS; i++) {
    const next = store.personRedirects.get([projectId, current]);
    if (next === undefined) return current;
    current = next;
  }
  return current;
}

/** The project's group types in index order (at most five): one read. */
export function groupTypeMapping(store: PersonsTables, projectId: number): GroupTypeRecord[] {
  return store.groupTypes.get(projectId) ?? [];
}

export function groupByKey(store: PersonsTables, projectId: number, typeIndex: number, groupKey: string): GroupRecord | undefined {
  return groupKey.length > MAX_GROUP_KEY_LENGTH ? undefined : store.groups.get([projectId, typeIndex, groupKey]);
}

/** A group's properties: one read; undefined when the group was never identified. */
export function groupProperties(store: PersonsTables, projectId: number, typeIndex: number, groupKey: string): Properties | undefined {
  return groupByKey(store, projectId, typeIndex, groupKey)?.group_properties;
}

/** Flag key → hash key overrides stored for a person (experience continuity). */
export function hashKeyOverrides(store: PersonsTables, projectId: number, personUuid: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of withPrefix(store.hashKeyOverrides, [projectId, personUuid])) out[key[2] as string] = value;
  return out;
}

/** The project's persons, newest first (by numeric id). */
export function* personsNewestFirst(store: PersonsTables, projectId: number): Generator<PersonRecord> {
  for (const { value: uuid } of store.personIds.getRange({ start: [projectId, Number.MAX_SAFE_INTEGER], end: [projectId, 0], reverse: true })) {
    const person = readByUuid(store, projectId, uuid);
    if (person) yield person;
  }
}

/** Every group of one type, by group key. */
export function groupsOfType(store: PersonsTables, projectId: number, typeIndex: number): GroupRecord[] {
  return [...withPrefix(store.groups, [projectId, typeIndex])].map(({ value }) => value);
}
