// How a person lies in LMDB (./tables.ts): whole in the row of each of its
// distinct ids, or — past PERSON_ROW_COPY_LIMIT ids — once under its uuid with rows
// referring to it. Every read and write of persons goes through here.
import { PERSON_ROW_COPY_LIMIT, type PersonRecord, type PersonRow, type PersonsTables } from './tables.js';

export function isWholePerson(row: PersonRow): row is PersonRecord {
  return 'uuid' in row;
}

export function rowPersonUuid(row: PersonRow): string {
  return isWholePerson(row) ? row.uuid : row.person_uuid;
}

export function readByDistinctId(store: PersonsTables, projectId: number, distinctId: string): PersonRecord | undefined {
  const row = store.personDistinctIds.get([projectId, distinctId]);
  if (!row || isWholePerson(row)) return row;
  const kept = store.persons.get([projectId, row.person_uuid]);
  return typeof kept === 'object' ? kept : undefined;
}

export function readByUuid(store: PersonsTables, projectId: number, uuid: string): PersonRecord | undefined {
  const location = store.persons.get([projectId, uuid]);
  if (typeof location === 'object') return location;
  if (location === undefined) return undefined;
  const row = store.personDistinctIds.get([projectId, location]);
  return row && isWholePerson(row) ? row : undefined;
}

// Writes a person after a change. `storedIds` is how many of its distinct ids the
// stored state already has rows for (0 for a new person); ids are only ever appended.
export function writePerson(store: PersonsTables, projectId: number, person: PersonRecord, storedIds: number): void {
  const ids = person.distinct_ids;
  if (ids.length <= PERSON_ROW_COPY_LIMIT) {
    for (const id of ids) store.personDistinctIds.put([projectId, id], person);
    if (storedIds === 0) store.persons.put([projectId, person.uuid], ids[0]);
    return;
  }
  store.persons.put([projectId, person.uuid], person);
  // Rows already referring stay as they are; rows that held the whole person now refer.
  const ref = { person_uuid: person.uuid };
  for (const id of storedIds > PERSON_ROW_COPY_LIMIT ? ids.slice(storedIds) : ids) store.personDistinctIds.put([projectId, id], ref);
}

// Removes a person and its distinct ids (its id index and redirects are the caller's).
export function removePerson(store: PersonsTables, projectId: number, person: PersonRecord, keepDistinctIds: boolean): void {
  if (!keepDistinctIds) for (const id of person.distinct_ids) store.personDistinctIds.remove([projectId, id]);
  store.persons.remove([projectId, person.uuid]);
}
