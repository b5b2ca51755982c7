// The persons and groups one consumer transaction works on. Reads go through to LMDB
// once and are then served from memory, so later events of the batch see the changes
// of earlier ones; `flush` writes everything that changed, once per record, inside the
// caller's transaction (with the consumer position, so a crash never half-applies it).
import type { Store } from '../store/env.js';
import type { GroupRecord, GroupTypeRecord, PersonRecord } from '../store/persons.js';
import type { PersonChange } from './identity.js';
import { resolveGroupType, upsertGroup, type GroupIdentify } from './groups.js';
import { warningDetails, type IngestionWarning } from './warnings.js';
import { withPrefix } from './prefix.js';

interface PendingPerson {
  projectId: number;
  record: PersonRecord;
  // Every distinct id row is rewritten when the properties (which they copy) change.
  allIds: boolean;
  newIds: string[];
  created: boolean;
}

interface Removal {
  projectId: number;
  person: PersonRecord;
  into: string;
}

const k = (a: number, b: string | number) => `${a}\u0000${b}`;

export class PersonBatch {
  private readonly distinctIds = new Map<string, string | null>();
  private readonly persons = new Map<string, PersonRecord | null>();
  private readonly pending = new Map<string, PendingPerson>();
  private readonly removals: Removal[] = [];
  private readonly lastIds = new Map<number, number>();
  private readonly groupTypes = new Map<number, GroupTypeRecord[]>();
  private readonly changedGroupTypes = new Set<number>();
  private readonly groups = new Map<string, GroupRecord | null>();
  private readonly changedGroups = new Map<string, { projectId: number; record: GroupRecord }>();
  private readonly warnings: { projectId: number; eventUuid: string; warning: IngestionWarning }[] = [];

  constructor(private readonly store: Store, private readonly nowMs: number) {}

  lookup(projectId: number, distinctId: string): PersonRecord | undefined {
    const key = k(projectId, distinctId);
    let uuid = this.distinctIds.get(key);
    if (uuid === undefined) {
      uuid = this.store.personDistinctIds.get([projectId, distinctId])?.person_uuid ?? null;
      this.distinctIds.set(key, uuid);
    }
    return uuid === null ? undefined : this.person(projectId, uuid);
  }

  private person(projectId: number, uuid: string): PersonRecord | undefined {
    const key = k(projectId, uuid);
    let p = this.persons.get(key);
    if (p === undefined) {
      p = this.store.persons.get([projectId, uuid]) ?? null;
      this.persons.set(key, p);
    }
    return p ?? undefined;
  }

  private nextId(projectId: number): number {
    const next = (this.lastIds.get(projectId) ?? this.store.personSeq.get(projectId) ?? 0) + 1;
    this.lastIds.set(projectId, next);
    return next;
  }

  private hold(projectId: number, record: PersonRecord, distinctIds: readonly string[]): void {
    this.persons.set(k(projectId, record.uuid), record);
    for (const id of distinctIds) this.distinctIds.set(k(projectId, id), record.uuid);
  }

  private markPending(projectId: number, record: PersonRecord, allIds: boolean, newIds: string[], created: boolean): void {
    const key = k(projectId, record.uuid);
    const prev = this.pending.get(key);
    if (prev) {
      prev.record = record;
      prev.allIds ||= allIds;
      prev.newIds.push(...newIds);
    } else {
      this.pending.set(key, { projectId, record, allIds, newIds, created });
    }
  }

  apply(projectId: number, change: PersonChange): void {
    switch (change.kind) {
      case 'create': {
        const record: PersonRecord = { id: this.nextId(projectId), ...change.person };
        this.hold(projectId, record, record.distinct_ids);
        this.markPending(projectId, record, true, [], true);
        return;
      }
      case 'update': {
        const added = change.addedDistinctId === null ? [] : [change.addedDistinctId];
        this.hold(projectId, change.person, added);
        this.markPending(projectId, change.person, change.propertiesChanged, added, false);
        return;
      }
      case 'merge': {
        this.hold(projectId, change.person, change.person.distinct_ids);
        this.markPending(projectId, change.person, true, [], false);
        this.persons.set(k(projectId, change.source.uuid), null);
        this.pending.delete(k(projectId, change.source.uuid));
        this.removals.push({ projectId, person: change.source, into: change.person.uuid });
        return;
      }
    }
  }

  private groupTypesOf(projectId: number): GroupTypeRecord[] {
    let types = this.groupTypes.get(projectId);
    if (!types) {
      types = this.store.groupTypes.get(projectId) ?? [];
      this.groupTypes.set(projectId, types);
    }
    return types;
  }

  // The index of a group type, registering it on first sight; null past the fifth.
  groupTypeIndex(projectId: number, groupType: string, timestamp: string): number | null {
    const types = this.groupTypesOf(projectId);
    const resolved = resolveGroupType(types, groupType, timestamp);
    if (resolved?.added) {
      this.groupTypes.set(projectId, [...types, resolved.added].sort((a, b) => a.group_type_index - b.group_type_index));
      this.changedGroupTypes.add(projectId);
    }
    return resolved ? resolved.index : null;
  }

  identifyGroup(projectId: number, typeIndex: number, g: GroupIdentify, timestamp: string): void {
    const key = `${k(projectId, typeIndex)}\u0000${g.groupKey}`;
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
    for (const { projectId, record, allIds, newIds, created } of this.pending.values()) {
      s.persons.put([projectId, record.uuid], record);
      if (created) {
        s.personIds.put([projectId, record.id], record.uuid);
        // A person re-created after a deletion must not keep following an old merge.
        s.personRedirects.remove([projectId, record.uuid]);
      }
      const row = { person_uuid: record.uuid, person_id: record.id, properties: record.properties };
      for (const id of allIds ? record.distinct_ids : newIds) s.personDistinctIds.put([projectId, id], row);
    }
    for (const { projectId, person, into } of this.removals) {
      s.persons.remove([projectId, person.uuid]);
      s.personIds.remove([projectId, person.id]);
      s.personRedirects.put([projectId, person.uuid], into);
      moveHashKeyOverrides(s, projectId, person.uuid, into);
    }
    for (const [projectId, last] of this.lastIds) s.personSeq.put(projectId, last);
    for (const projectId of this.changedGroupTypes) s.groupTypes.put(projectId, this.groupTypes.get(projectId)!);
    for (const { projectId, record } of this.changedGroups.values()) {
      s.groups.put([projectId, record.group_type_index, record.group_key], record);
    }
    const timestamp = new Date(this.nowMs).toISOString();
    this.warnings.forEach(({ projectId, eventUuid, warning }, n) => {
      s.ingestionWarnings.put([projectId, this.nowMs, eventUuid, n], { type: warning.type, timestamp, details: warningDetails(warning) });
    });
  }
}

// Flag hash key overrides follow the person: the surviving person keeps its own and
// takes over the merged person's for flags it has none for.
function moveHashKeyOverrides(s: Store, projectId: number, from: string, to: string): void {
  const moved = [...withPrefix(s.hashKeyOverrides, [projectId, from])].map(({ key, value }) => [key[2] as string, value]);
  for (const [flagKey, hashKey] of moved) {
    s.hashKeyOverrides.remove([projectId, from, flagKey]);
    if (s.hashKeyOverrides.get([projectId, to, flagKey]) === undefined) s.hashKeyOverrides.put([projectId, to, flagKey], hashKey);
  }
}
