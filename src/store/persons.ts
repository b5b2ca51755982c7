// Records and keys of the persons and groups collections. The domain logic lives in
// src/persons/; this module only says what is stored where.

export type Properties = Record<string, unknown>;

// [project_id, person uuid] → the person.
export interface PersonRecord {
  // PostHog's numeric person id, per project, in creation order.
  id: number;
  uuid: string;
  created_at: string;
  properties: Properties;
  is_identified: boolean;
  distinct_ids: string[];
}

// [project_id, distinct_id] → the person that distinct id belongs to, with the person's
// properties copied in so flag evaluation needs one read per distinct id.
export interface DistinctIdRecord {
  person_uuid: string;
  person_id: number;
  properties: Properties;
}

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

// [project_id, timestamp_ms, event uuid, n] → why an event was not fully processed.
export interface IngestionWarningRecord {
  type: string;
  timestamp: string;
  details: Record<string, unknown>;
}

export type PersonKey = [projectId: number, uuid: string];
export type DistinctIdKey = [projectId: number, distinctId: string];
export type PersonIdKey = [projectId: number, id: number];
export type GroupKey = [projectId: number, typeIndex: number, groupKey: string];
export type IngestionWarningKey = [projectId: number, timestampMs: number, eventUuid: string, n: number];
export type HashKeyOverrideKey = [projectId: number, personUuid: string, flagKey: string];
