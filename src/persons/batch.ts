// The persons and groups one consumer transaction works on. Persons come from the
// consumer's cache or, once, from LMDB, so later events see the changes of earlier
// ones; `flush` writes each changed record once, inside the caller's transaction (with
// the consumer position, so a crash never half-applies a batch).
import type { GroupRecord, GroupTypeRecord, PersonRecord, PersonsTables } from './tables.js';
import type { PersonChange } from './identity.js';
import type { Held, PersonCache } from './person-cache.js';
import { isWholePerson, readByUuid, removePerson, rowPersonUuid, writePerson } from './person-rows.js';
import { resolveGroupType, upsertGroup, type GroupIdentify } from './groups.js';
import { putWarning, type IngestionWarning, type IngestionWarningsTables } from '../ingestion-warnings/index.js';
import { withPrefix } from '../store/index.js';

interface Removal {
  projectId: number;
  person: PersonRecord;
  into: string;
}

// `storedIds`: as many as the record has for a person read from the store; 0 for a new one.
function held(projectId: number, uuid: string, record: PersonRecord | null, storedIds = record ? record.distinct_ids.length : 0): Held {
  return { projectId, uuid, record, storedIds, changed: false, seen: 0 };
}

export class PersonBatch {
  private readonly changed: Held[] = [];
  private readonly removals: Removal[] = [];
  private readonly lastIds = new Map<number, number>();
  private readonly changedGroupTypes = new Set<number>();
  private readonly groups = new Map<string, GroupRecord | null>();
  private readonly changedGroups = new Map<string, { projectId: number; record: GroupRecord }>();
  private readonly warnings: { projectId: number; eventUuid: string; warning: IngestionWarning }[] = [];

  constructor(private readonly store: PersonsTables & IngestionWarningsTables, private readonly cache: PersonCache, private readonly nowMs: number) {
    cache.validate(store);
  }

  lookup(projectId: number, distinctId: string): PersonRecord | undefined {
    let h = this.cache.personOf(projectId, distinctId);
    if (h === undefined) h = this.read(projectId, distinctId);
    return h?.record ?? undefined;
  }

  // A distinct id the cache does not know: its row, and the person held for it if any.
  private read(projectId: number, distinctId: string): Held | null {
    const c = this.cache;
    const row = this.store.personDistinctIds.get([projectId, distinctId]);
    let h: Held | null = null;
    if (row) {
      const uuid = rowPersonUuid(row);
      // The cache may know this person already, with changes its rows do not have yet.
      h = c.person(projectId, uuid) ?? null;
      if (h === null) {
        h = held(projectId, uuid, isWholePerson(row) ? row : readByUuid(this.store, projectId, uuid) ?? null);
        c.keep(h);
      }
    }
    c.setPersonOf(projectId, distinctId, h);
    return h;
  }

  private nextId(projectId: number): number {
    const next = (this.lastIds.get(projectId) ?? this.store.personSeq.get(projectId) ?? 0) + 1;
    this.lastIds.set(projectId, next);
    return next;
  }

  private hold(projectId: number, record: PersonRecord, distinctIds: readonly string[]): void {
    this.cache.changing();
    let h = this.cache.person(projectId, record.uuid);
    if (!h) {
      h = held(projectId, record.uuid, record, 0);
      this.cache.keep(h);
    }
    h.record = record;
    if (!h.changed) {
      h.changed = true;
      this.changed.push(h);
    }
    for (const id of distinctIds) this.cache.setPersonOf(projectId, id, h);
  }

  apply(projectId: number, change: PersonChange): void {
    switch (change.kind) {
      case 'create':
        this.hold(projectId, { id: this.nextId(projectId), ...change.person }, change.person.distinct_ids);
        return;
      case 'update':
        this.hold(projectId, change.person, change.addedDistinctId === null ? [] : [change.addedDistinctId]);
        return;
      case 'merge': {
        this.hold(projectId, change.person, change.source.distinct_ids);
        const source = this.cache.person(projectId, change.source.uuid);
        if (source) source.record = null;
        this.removals.push({ projectId, person: change.source, into: change.person.uuid });
        return;
      }
    }
  }

  private groupTypesOf(projectId: number): GroupTypeRecord[] {
    let types = this.cache.groupTypes.get(projectId);
    if (!types) {
      types = this.store.groupTypes.get(projectId) ?? [];
      this.cache.groupTypes.set(projectId, types);
    }
    return types;
  }

  // The index of a group type, registering it on first sight; null past the fifth.
  groupTypeIndex(projectId: number, groupType: string, timestamp: string): number | null {
    const types = this.groupTypesOf(projectId);
    const resolved = resolveGroupType(types, groupType, timestamp);
    if (resolved?.added) {
      this.cache.changing();
      this.cache.groupTypes.set(projectId, [...types, resolved.added].sort((a, b) => a.group_type_index - b.group_type_index));
      this.changedGroupTypes.add(projectId);
    }
    return resolved ? resolved.index : null;
  }

  identifyGroup(projectId: number, typeIndex: number, g: GroupIdentify, timestamp: string): void {
    const key = `${projectId}\u0000${typeIndex}\u0000${g.groupKey}`;
    let existing = this.groups.get(key);
    if (existing === undefined) existing = this.store.groups.get([projectId, typeIndex, g.groupKey]) ?? null;
    const next = upsertGroup(existing ?? undefined, typeIndex, g, timestamp);
    this.groups.set(key, next ?? existing);
    if (next) this.changedGroups.set(key, { projectId, record: next });
  }

  warn(projectId: number, eventUuid: string, warning: IngestionWarning): void {
    this.warnings.push({ projectId, eventUuid, warning });
  }

  flush(): void {
    const s = this.store;
    for (const h of this.changed) {
      h.changed = false;
      // Merged away later in the batch: the removal below takes care of it.
      if (!h.record) continue;
      writePerson(s, h.projectId, h.record, h.storedIds);
      if (h.storedIds === 0) s.personIds.put([h.projectId, h.record.id], h.record.uuid);
      h.storedIds = h.record.distinct_ids.length;
    }
    for (const { projectId, person, into } of this.removals) {
      // Its distinct ids now belong to the person it merged into.
      removePerson(s, projectId, person, true);
      s.personIds.remove([projectId, person.id]);
      s.personRedirects.put([projectId, person.uuid], into);
      moveHashKeyOverrides(s, projectId, person.uuid, into);
    }
    for (const [projectId, last] of this.lastIds) s.personSeq.put(projectId, last);
    for (const projectId of this.changedGroupTypes) s.groupTypes.put(projectId, this.cache.groupTypes.get(projectId)!);
    for (const { projectId, record } of this.changedGroups.values()) {
      s.groups.put([projectId, record.group_type_index, record.group_key], record);
    }
    if (this.changed.length > 0 || this.removals.length > 0 || this.changedGroupTypes.size > 0) this.cache.advance(s);
    this.cache.settle();
    this.warnings.forEach(({ projectId, eventUuid, warning }, n) => putWarning(s, projectId, this.nowMs, eventUuid, n, warning));
  }
}

// Flag hash key overrides follow the person: the surviving person keeps its own and
// takes over the merged person's for flags it has none for.
function moveHashKeyOverrides(s: PersonsTables, projectId: number, from: string, to: string): void {
  const moved = [...withPrefix(s.hashKeyOverrides, [projectId, from])].map(({ key, value }) => [key[2] as string, value]);
  for (const [flagKey, hashKey] of moved) {
    s.hashKeyOverrides.remove([projectId, from, flagKey]);
    if (s.hashKeyOverrides.get([projectId, to, flagKey]) === undefined) s.hashKeyOverrides.put([projectId, to, flagKey], hashKey);
  }
}
