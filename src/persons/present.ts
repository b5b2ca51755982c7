// Stored records → PostHog's API objects. Pure.
import type { GroupRecord, GroupTypeRecord, PersonRecord } from './tables.js';
import type { Group, GroupType, Person } from './schemas.js';

// What PostHog considers an anonymous id (the SDKs' generated ids): listed last.
const ANONYMOUS_ID = /^([a-z0-9]+-){4}([a-z0-9]+)$/;
const DISPLAY_NAME_PROPERTIES = ['email', 'name', 'username'];

export function sortDistinctIds(ids: readonly string[]): string[] {
  const named = ids.filter((id) => !ANONYMOUS_ID.test(id));
  return named.length === ids.length ? [...ids] : [...named, ...ids.filter((id) => ANONYMOUS_ID.test(id))];
}

// The first display property set, else the most meaningful distinct id, else the id.
export function displayName(p: PersonRecord): string {
  for (const key of DISPLAY_NAME_PROPERTIES) {
    const value = p.properties[key];
    if (value) return String(value);
  }
  return sortDistinctIds(p.distinct_ids)[0] ?? String(p.id);
}

export function presentPerson(p: PersonRecord): Person {
  return {
    id: p.id, uuid: p.uuid, name: displayName(p), distinct_ids: sortDistinctIds(p.distinct_ids),
    properties: p.properties, created_at: p.created_at, is_identified: p.is_identified,
  };
}

export function presentGroup(g: GroupRecord): Group {
  return { group_type_index: g.group_type_index, group_key: g.group_key, group_properties: g.group_properties, created_at: g.created_at };
}

export function presentGroupType(t: GroupTypeRecord): GroupType {
  return {
    group_type: t.group_type, group_type_index: t.group_type_index, name_singular: t.name_singular,
    name_plural: t.name_plural, detail_dashboard: null, default_columns: null, created_at: t.created_at,
  };
}
