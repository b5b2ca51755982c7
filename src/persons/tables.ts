// The tables of persons and groups, and the records and keys they hold.
import { plainMaps, table, type Tables } from '../store/index.js';

export type Properties = Record<string, unknown>;

// A person. Stored whole in the row of each of its distinct ids (see DistinctIdRecord).
export interface PersonRecord {
  // PostHog's numeric person id, per project, in creation order.
  id: number;
  uuid: string;
  created_at: string;
  properties: Properties;
  is_identified: boolean;
  distinct_ids: string[];
}

// Up to this many distinct ids, every one of a person's rows holds the whole person.
export const PERSON_ROW_COPY_LIMIT = 8;

// [project_id, distinct_id] → the whole person, so ingestion and flag evaluation need
// one read and an update of a one-id person one write. A person with more distinct ids
// than PERSON_ROW_COPY_LIMIT is kept once, in `persons`, and its rows refer to it:
// an update then writes one record however many ids the person has.
export type PersonRow = PersonRecord | PersonReference;
export interface PersonReference {
  person_uuid: string;
}

// What flag evaluation reads for a distinct id (./store.ts personByDistinctId).
export interface DistinctIdRecord {
  person_uuid: string;
  person_id: number;
  properties: Properties;
}

// [project_id, person uuid] → the distinct id whose row holds the person, or the person
// itself when its rows are references.
export type PersonLocation = string | PersonRecord;

// [project_id] → every group type of the project, in index order (at most five).
export interface GroupTypeRecord {
  group_type: string;
  group_type_index: number;
  created_at: string;
  name_singular: string | null;
  name_plural: string | null;
}

// [project_id, group_type_index, group_key] → the group.
export interface GroupRecord {
  group_type_index: number;
  group_key: string;
  group_properties: Properties;
  created_at: string;
}

// `personSeq` (project_id → last numeric person id) also holds, under this key, the
// persons generation: moved by every write to persons and groups, so the consumer knows
// when what it cached is no longer what is stored (./person-cache.ts).
export const PERSONS_GENERATION_KEY = -1;

export type PersonKey = [projectId: number, uuid: string];
export type DistinctIdKey = [projectId: number, distinctId: string];
export type PersonIdKey = [projectId: number, id: number];
export type GroupKey = [projectId: number, typeIndex: number, groupKey: string];
export type HashKeyOverrideKey = [projectId: number, personUuid: string, flagKey: string];

export const personsTables = {
  // The records above say what these hold (PersonLocation, PersonRow).
  persons: table<PersonLocation, PersonKey>('persons', plainMaps),
  personDistinctIds: table<PersonRow, DistinctIdKey>('person_distinct_ids', plainMaps),
  // [project_id, numeric person id] → uuid: lookup by id and listing in creation order.
  personIds: table<string, PersonIdKey>('person_ids'),
  // [project_id, uuid of a merged-away person] → uuid of the person it merged into.
  personRedirects: table<string, PersonKey>('person_redirects'),
  // project_id → the last numeric person id handed out.
  personSeq: table<number, number>('person_seq'),
  // GroupTypeRecord and GroupRecord above.
  groupTypes: table<GroupTypeRecord[], number>('group_types'),
  groups: table<GroupRecord, GroupKey>('groups'),
  // [project_id, person uuid, flag key] → hash key (experience continuity).
  hashKeyOverrides: table<string, HashKeyOverrideKey>('hash_key_overrides'),
};

export type PersonsTables = Tables<typeof personsTables>;
