// What a batch of the log means for the columnar store, read from LMDB once the event store
// has applied it (the insights consumer follows the event store): each event as stored
// (after person processing; a dropped event is not loaded) with the current person of its
// distinct id, and for every person the batch touches its current properties, creation
// time and distinct ids, so a merge the batch caused moves the merged person's events
// (columnar/loader.ts).
import type { EventGroup } from '../log/consumers/index.js';
import { personRecordByDistinctId, personUuid, resolvePersonUuid, type PersonRecord, type PersonsTables } from '../persons/index.js';
import type { EventsTables, StoredEventValue } from '../events/tables.js';
import type { ColumnarEvent, ColumnarPerson, DistinctIdMapping } from './columnar/stage.js';

export interface ColumnarBatch {
  events: ColumnarEvent[];
  persons: ColumnarPerson[];
  distinctIds: DistinctIdMapping[];
}

// Characters of fingerprints (and their keys) kept at most: ~64 MB of heap, whatever the
// persons' size. The bound was 500,000 persons: with 40 properties a fingerprint is ~1.5 KB,
// so ~750 MB.
export const MEMO_BYTES = 64 * 1024 * 1024;

/**
 * What the worker last loaded of each person (creation, properties, distinct ids as one
 * JSON text), so a batch sends only persons that changed: in a steady stream most events
 * come from persons already loaded as they are. Updated only once a batch has committed.
 */
export class LoadedPersons {
  private readonly known = new Map<string, string>();
  private chars = 0;

  constructor(private readonly limit = MEMO_BYTES) {}

  unchanged(key: string, fingerprint: string): boolean {
    return this.known.get(key) === fingerprint;
  }

  commit(loaded: ReadonlyMap<string, string>): void {
    let adding = 0;
    for (const [k, v] of loaded) adding += k.length + v.length;
    // Forgetting costs only a resend of persons that did not change.
    if (this.chars + adding > this.limit) {
      this.known.clear();
      this.chars = 0;
    }
    for (const [k, v] of loaded) {
      const before = this.known.get(k);
      if (before !== undefined) this.chars -= k.length + before.length;
      this.known.set(k, v);
      this.chars += k.length + v.length;
    }
  }
}

/** Collects events and their persons into one batch, reading each person once. */
export class BatchBuilder {
  private readonly events: ColumnarEvent[] = [];
  private readonly persons = new Map<string, ColumnarPerson>();
  private readonly distinctIds = new Map<string, DistinctIdMapping>();
  private readonly personOf = new Map<string, string>();
  /** Fingerprints of the persons this batch sends, for LoadedPersons once it committed. */
  readonly fingerprints = new Map<string, string>();

  constructor(private readonly store: EventsTables & PersonsTables, private readonly loaded: LoadedPersons = new LoadedPersons()) {}

  get size(): number {
    return this.events.length;
  }

  /** The current person of a distinct id (recording the person and its ids), or, without one, the event's. */
  private resolve(projectId: number, distinctId: string, stored: string | null): string {
    const key = `${projectId}\u0000${distinctId}`;
    const known = this.personOf.get(key);
    if (known !== undefined) return known;
    const person = personRecordByDistinctId(this.store, projectId, distinctId);
    let uuid: string;
    if (person) {
      uuid = person.uuid;
      this.addPerson(projectId, person);
    } else {
      // A personless event, or one whose person was deleted since.
      uuid = stored ? resolvePersonUuid(this.store, projectId, stored) : personUuid(projectId, distinctId);
    }
    this.personOf.set(key, uuid);
    return uuid;
  }

  addPerson(projectId: number, person: PersonRecord): void {
    const key = `${projectId}\u0000${person.uuid}`;
    for (const d of person.distinct_ids) this.personOf.set(`${projectId}\u0000${d}`, person.uuid);
    if (this.fingerprints.has(key)) return;
    const fingerprint = JSON.stringify([person.created_at, person.properties, person.distinct_ids]);
    if (this.loaded.unchanged(key, fingerprint)) return;
    this.fingerprints.set(key, fingerprint);
    this.persons.set(key, { project_id: projectId, id: person.uuid, created_at: person.created_at, properties: person.properties });
    for (const d of person.distinct_ids) {
      this.distinctIds.set(`${projectId}\u0000${d}`, { project_id: projectId, distinct_id: d, person_id: person.uuid });
    }
  }

  addStored(projectId: number, row: StoredEventValue): void {
    this.events.push({
      project_id: projectId, uuid: row.uuid, event: row.event, distinct_id: row.distinct_id,
      person_id: this.resolve(projectId, row.distinct_id, row.person_id), timestamp: row.timestamp, properties: row.properties,
    });
  }

  /** Adds the log groups' events as the event store holds them. */
  addGroups(groups: readonly EventGroup[]): void {
    for (const group of groups) {
      for (const ev of group.events) {
        const row = this.store.eventRows.get([ev.project_id, ev.uuid]);
        if (row) this.addStored(ev.project_id, row);
      }
    }
  }

  take(): ColumnarBatch {
    return { events: this.events, persons: [...this.persons.values()], distinctIds: [...this.distinctIds.values()] };
  }
}
