// The persons and groups one consumer transaction works on. Reads go through to LMDB
// once and are then served from memory, so later events of the batch see the changes
// of earlier ones; `flush` writes everything that changed, once per record, inside the
// caller's transaction (with the consumer position, so a crash never half-applies it).
import type { Store } from '../store/env.js';
import type { GroupRecord, GroupTypeRecord, PersonRecord } from '../store/persons.js';
import type { PersonChange } from './identity.js';
import { isWholePerson, readByUuid, removePerson, rowPersonUuid, writePerson } from './person-rows.js';
import { resolveGroupType, upsertGroup, type GroupIdentify } from './groups.js';
import { warningDetails, type IngestionWarning } from './warnings.js';
import { withPrefix } from './prefix.js';

// A person as this batch knows it: null once merged away; `storedIds` is how many
// distinct ids its stored rows cover (0 for a person created in this batch).
interface Held {
  projectId: number;
  record: PersonRecord | null;
  storedIds: number;
  changed: boolean;
}

interface Removal {
  projectId: number;
  person: PersonRecord;
  into: string;
}

const k = (a: number, b: string | number) => `${a}\u0000${b}`;

export class PersonBatch {
  private readonly distinctIds = new Map<string, string | null>();
  private readonly persons = new Map<string, Held>();
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
      const row = this.store.personDistinctIds.get([projectId, distinctId]);
      uuid = row ? rowPersonUuid(row) : null;
      this.distinctIds.set(key, uuid);
      // A person this batch already holds may have changed since its rows were written.
      if (row && uuid !== null && !this.persons.has(k(projectId, uuid))) {
        const record = isWholePerson(row) ? row : readByUuid(this.store, projectId, uuid) ?? null;
        this.persons.set(k(projectId, uuid), { projectId, record, storedIds: record?.distinct_ids.length ?? 0, changed: false });
      }
    }
    return uuid === null ? undefined : this.persons.get(k(projectId, uuid))?.record ?? undefined;
  }

  private nextId(projectId: number): number {
    const next = (this.lastIds.get(projectId) ?? this.store.personSeq.get(projectId) ?? 0) + 1;
    this.lastIds.set(projectId, next);
    return next;
  }

  private hold(projectId: number, record: PersonRecord, distinctIds: readonly string[]): void {
    const held = this.persons.get(k(projectId, record.uuid));
    if (held) {
      held.record = record;
      held.changed = true;
    } else {
      this.persons.set(k(projectId, record.uuid), { projectId, record, storedIds: 0, changed: true });
    }
    for (const id of distinctIds) this.distinctIds.set(k(projectId, id), record.uuid);
  }

  apply(projectId: number, change: PersonChange): void {
    switch (change.kind) {
      case 'create': {
        const record: PersonRecord = { id: this.nextId(projectId), ...change.person };
        this.hold(projectId, record, record.distinct_ids);
        return;
      }
      case 'update':
        this.hold(projectId, change.person, change.addedDistinctId === null ? [] : [change.addedDistinctId]);
        return;
      case 'merge': {
        this.hold(projectId, change.person, change.source.distinct_ids);
        const source = this.persons.get(k(projectId, change.source.uuid))!;
        source.record = null;
        source.changed = false;
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
    for (const { projectId, record, storedIds, changed } of this.persons.values()) {
      if (!changed || !record) continue;
      writePerson(s, projectId, record, storedIds);
      if (storedIds === 0) s.personIds.put([projectId, record.id], record.uuid);
    }
    for (const { projectId, person, into } of this.removals) {
      // Its distinct ids now belong to the person it merged into.
      removePerson(s, projectId, person, true);
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
