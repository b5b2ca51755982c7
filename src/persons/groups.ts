// Groups: $groupidentify creates or updates a group (shallow merge of $group_set), and
// group types get indexes 0–4 in order of first appearance. Pure.
import type { GroupRecord, GroupTypeRecord, Properties } from './tables.js';
import { isObject } from '../json.js';

export const MAX_GROUP_TYPES = 5;
// Longer group keys are refused at ingestion (group_key_too_long, src/persons/normalize.ts),
// so no stored group has one.
export const MAX_GROUP_KEY_LENGTH = 400;

export interface GroupIdentify {
  groupType: string;
  groupKey: string;
  groupSet: Properties;
}

// What a $groupidentify names; null when it lacks a type or a key (then it does nothing).
export function groupIdentifyFields(properties: Properties): GroupIdentify | null {
  const { $group_type: type, $group_key: key, $group_set: set } = properties;
  if (!type || !key || isObject(type) || isObject(key)) return null;
  return { groupType: String(type), groupKey: String(key), groupSet: isObject(set) ? set : {} };
}

export type GroupTypeResolution =
  | { index: number; added: GroupTypeRecord | null }
  | null;

// The index of `groupType`, giving a new type the lowest free index; null once the
// project has all five.
export function resolveGroupType(mapping: readonly GroupTypeRecord[], groupType: string, timestamp: string): GroupTypeResolution {
  const known = mapping.find((t) => t.group_type === groupType);
  if (known) return { index: known.group_type_index, added: null };
  const used = new Set(mapping.map((t) => t.group_type_index));
  let index = 0;
  while (used.has(index)) index++;
  if (index >= MAX_GROUP_TYPES) return null;
  return { index, added: { group_type: groupType, group_type_index: index, created_at: timestamp, name_singular: null, name_plural: null } };
}

// The group after a $groupidentify, or null when it changes nothing. Properties are
// applied in arrival order: the latest value wins.
export function upsertGroup(existing: GroupRecord | undefined, typeIndex: number, g: GroupIdentify, timestamp: string): GroupRecord | null {
  if (!existing) return { group_type_index: typeIndex, group_key: g.groupKey, group_properties: { ...g.groupSet }, created_at: timestamp };
  let changed = false;
  for (const key of Object.keys(g.groupSet)) {
    const value = g.groupSet[key];
    // Objects count as changed, as in PostHog: comparing them is not worth it here.
    if (!Object.hasOwn(existing.group_properties, key) || existing.group_properties[key] !== value) changed = true;
  }
  return changed ? { ...existing, group_properties: { ...existing.group_properties, ...g.groupSet } } : null;
}
