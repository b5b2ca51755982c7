// What a batch of the log means for the columnar store, read from LMDB once the event store
// has applied it (the insights consumer follows the event store): each event as stored
// (after person processing; a dropped event is not loaded) with the current person of its
// distinct id, for every person the batch touches its current properties, creation time,
// whether it is identified and its distinct ids, and for every $groupidentify the group as
// it now is, so a merge the batch caused moves the merged person's events
// (columnar/loader.ts).
import type { EventGroup } from '../log/consumers/index.js';
import { rowValueRanges } from '../events/index.js';
import {
  groupByKey, groupIdentifyFields, groupTypeMapping, personRecordByDistinctId, personRowBytes, personUuid, resolvePersonUuid, wholePersonOfRow, type PersonRecord, type PersonsTables,
} from '../persons/index.js';
import type { EventsTables, StoredEventValue } from '../events/tables.js';
import { createEventText, type ColumnarGroup, type ColumnarPerson, type DistinctIdMapping, type StagedEvents } from './columnar/stage.js';
import { NOT_JSON, wellFormedUtf8, writeAscii, writeMsgpackAsJson, writeUtf8String, writeUuidString, type JsonSink } from './columnar/json-bytes.js';

export interface ColumnarBatch {
  /** The events' staged text (the first of each uuid); null when there are none. */
  eventText: StagedEvents | null;
  persons: ColumnarPerson[];
  groups: ColumnarGroup[];
  distinctIds: DistinctIdMapping[];
}

// Characters (and bytes) of fingerprints and their keys kept at most: ~64 MB of heap, whatever the
// persons' size. The bound was 500,000 persons: with 40 properties a fingerprint is ~1.5 KB,
// so ~750 MB.
export const MEMO_BYTES = 64 * 1024 * 1024;

// What a person was last loaded as: the bytes of its row when its rows hold it whole (equal
// bytes, equal person), else one JSON text of its creation, properties and distinct ids.
export type Fingerprint = string | Buffer;

// A person loaded from a row that held it whole: found again through any of its ids' rows.
export interface WholeRow {
  projectId: number;
  // Its key in LoadedPersons (project and uuid).
  person: string;
  uuid: string;
  ids: readonly string[];
}

const sameFingerprint = (a: Fingerprint, b: Fingerprint) => (typeof a === 'string' || typeof b === 'string' ? a === b : a.equals(b));

/**
 * What the worker last loaded of each person (its fingerprint), so a batch sends only
 * persons that changed: in a steady stream most events come from persons already loaded as
 * they are. A person loaded from a row that held it whole is also found by its distinct ids:
 * a row whose bytes are still those loaded is that person unchanged, known without decoding
 * it. Updated only once a batch has committed.
 */
export class LoadedPersons {
  private readonly known = new Map<string, Fingerprint>();
  // [project, distinct id] key → the person its row held whole when loaded.
  private readonly rows = new Map<string, WholeRow>();
  private chars = 0;

  constructor(private readonly limit = MEMO_BYTES) {}

  unchanged(key: string, fingerprint: Fingerprint): boolean {
    const known = this.known.get(key);
    return known !== undefined && sameFingerprint(known, fingerprint);
  }

  /** The person a distinct id's row held when last loaded, if `bytes` are still its row's. */
  unchangedRow(rowKey: string, bytes: Uint8Array): WholeRow | undefined {
    const row = this.rows.get(rowKey);
    if (row === undefined) return undefined;
    const known = this.known.get(row.person);
    return known !== undefined && typeof known !== 'string' && known.equals(bytes) ? row : undefined;
  }

  commit(loaded: ReadonlyMap<string, Fingerprint>, wholes: Iterable<WholeRow> = []): void {
    let adding = 0;
    for (const [k, v] of loaded) adding += k.length + v.length;
    // Forgetting costs only a resend of persons that did not change.
    if (this.chars + adding > this.limit) {
      this.known.clear();
      this.rows.clear();
      this.chars = 0;
    }
    for (const [k, v] of loaded) {
      const before = this.known.get(k);
      if (before !== undefined) this.chars -= k.length + before.length;
      this.known.set(k, v);
      this.chars += k.length + v.length;
    }
    for (const whole of wholes) {
      for (const id of whole.ids) {
        const key = `${whole.projectId}\u0000${id}`;
        if (!this.rows.has(key)) this.chars += key.length;
        this.rows.set(key, whole);
      }
    }
  }
}

// The event row's keys read from its bytes (src/events/row-fields.ts), by index.
const ROW_KEYS = ['uuid', 'event', 'distinct_id', 'timestamp', 'person_id', 'properties'].map((k) => Buffer.from(k));
const [UUID, EVENT, DISTINCT_ID, TIMESTAMP, PERSON_ID, PROPERTIES] = [0, 1, 2, 3, 4, 5];
const ranges = new Int32Array(2 * ROW_KEYS.length);
// Where each string rowString read starts (past its tag and length): its bytes are copied
// into the line from there.
const starts = new Int32Array(ROW_KEYS.length);
// The row being read, out of lmdb-js's read buffer; a row larger than this gets a buffer of
// its own, not kept.
const ROW_COPY_BYTES = 1024 * 1024;
const rowCopy = Buffer.allocUnsafe(ROW_COPY_BYTES);

// The row's value for key `k` as a string, if it is a well-formed UTF-8 string (what
// msgpackr decodes it to then); null otherwise.
function rowString(b: Buffer, k: number): string | null {
  return rowStringBytes(b, k) ? b.toString('utf8', starts[k], ranges[2 * k + 1]) : null;
}

// Whether the row's value for key `k` is a well-formed UTF-8 string, as rowString reads it,
// without making the string (its bytes are copied into the line); its start goes to `starts`.
function rowStringBytes(b: Buffer, k: number): boolean {
  const at = ranges[2 * k];
  if (at < 0) return false;
  const t = b[at];
  let start: number;
  if (t >= 0xa0 && t < 0xc0) start = at + 1;
  else if (t === 0xd9) start = at + 2;
  else if (t === 0xda) start = at + 3;
  else if (t === 0xdb) start = at + 5;
  else return false;
  if (!wellFormedUtf8(b, start, ranges[2 * k + 1])) return false;
  starts[k] = start;
  return true;
}

const GROUP_IDENTIFY = Buffer.from('$groupidentify');

// Whether the string rowStringBytes found for key `k` is `text`'s bytes.
function rowStringIs(b: Buffer, k: number, text: Buffer): boolean {
  const start = starts[k];
  return ranges[2 * k + 1] - start === text.length && b.compare(text, 0, text.length, start, start + text.length) === 0;
}

const digit = (b: Buffer, i: number) => b[i] - 0x30;
const twoDigits = (b: Buffer, i: number) => 10 * digit(b, i) + digit(b, i + 1);
const isDigits = (b: Buffer, from: number, to: number) => {
  for (let i = from; i < to; i++) if (b[i] < 0x30 || b[i] > 0x39) return false;
  return true;
};

// The instant (ms) of the string rowStringBytes found for key `k`: Date.parse's, read from the
// bytes where they are a plain ISO instant (YYYY-MM-DDTHH:MM:SS.sssZ from 1970, a day of month
// no month overruns), else through Date.parse itself.
function rowInstant(b: Buffer, k: number): number {
  const s = starts[k];
  if (ranges[2 * k + 1] - s === 24 && b[s + 4] === 0x2d && b[s + 7] === 0x2d && b[s + 10] === 0x54 && b[s + 13] === 0x3a && b[s + 16] === 0x3a
    && b[s + 19] === 0x2e && b[s + 23] === 0x5a && isDigits(b, s, s + 4) && isDigits(b, s + 5, s + 7) && isDigits(b, s + 8, s + 10)
    && isDigits(b, s + 11, s + 13) && isDigits(b, s + 14, s + 16) && isDigits(b, s + 17, s + 19) && isDigits(b, s + 20, s + 23)) {
    const year = 100 * twoDigits(b, s) + twoDigits(b, s + 2);
    const month = twoDigits(b, s + 5);
    const day = twoDigits(b, s + 8);
    const hour = twoDigits(b, s + 11);
    const minute = twoDigits(b, s + 14);
    const second = twoDigits(b, s + 17);
    if (year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= 28 && hour < 24 && minute < 60 && second < 60) {
      return Date.UTC(year, month - 1, day, hour, minute, second, 100 * digit(b, s + 20) + twoDigits(b, s + 21));
    }
  }
  return Date.parse(b.toString('utf8', s, ranges[2 * k + 1]));
}

// A string rowString read, as JSON from its bytes (well-formed: rowString checked them).
function rowStringAsJson(sink: JsonSink, b: Buffer, k: number): void {
  writeUtf8String(sink, b, starts[k], ranges[2 * k + 1]);
}

/** Collects events and their persons into one batch, reading each person once. */
export class BatchBuilder {
  private readonly text = createEventText();
  private readonly persons = new Map<string, ColumnarPerson>();
  private readonly groups = new Map<string, ColumnarGroup>();
  private readonly distinctIds = new Map<string, DistinctIdMapping>();
  private readonly personOf = new Map<string, string>();
  /** Fingerprints of the persons this batch sends, for LoadedPersons once it committed. */
  readonly fingerprints = new Map<string, Fingerprint>();
  /** Those of them read from rows that held them whole. */
  readonly wholes: WholeRow[] = [];

  constructor(private readonly store: EventsTables & PersonsTables, private readonly loaded: LoadedPersons = new LoadedPersons()) {}

  get size(): number {
    return this.text.count;
  }

  /** The current person of a distinct id (recording the person and its ids), or, without one, the event's. */
  private resolve(projectId: number, distinctId: string, stored: string | null): string {
    const key = `${projectId}\u0000${distinctId}`;
    const known = this.personOf.get(key);
    if (known !== undefined) return known;
    const bytes = personRowBytes(this.store, projectId, distinctId);
    let person: PersonRecord | undefined;
    let row: Buffer | undefined;
    if (bytes !== undefined) {
      // The row as it was last loaded: that person, unchanged, without decoding it.
      const same = this.loaded.unchangedRow(key, bytes);
      if (same !== undefined) {
        for (const d of same.ids) this.personOf.set(d === distinctId ? key : `${projectId}\u0000${d}`, same.uuid);
        return same.uuid;
      }
      row = Buffer.from(bytes);
      person = wholePersonOfRow(this.store, row) ?? undefined;
      if (person === undefined) row = undefined;
    }
    person ??= personRecordByDistinctId(this.store, projectId, distinctId);
    let uuid: string;
    if (person) {
      uuid = person.uuid;
      this.addPerson(projectId, person, row);
    } else {
      // A personless event, or one whose person was deleted since.
      uuid = stored ? resolvePersonUuid(this.store, projectId, stored) : personUuid(projectId, distinctId);
    }
    this.personOf.set(key, uuid);
    return uuid;
  }

  /** `row`: the bytes of a row that held the person whole, its fingerprint. */
  addPerson(projectId: number, person: PersonRecord, row?: Buffer): void {
    const key = `${projectId}\u0000${person.uuid}`;
    for (const d of person.distinct_ids) this.personOf.set(`${projectId}\u0000${d}`, person.uuid);
    if (this.fingerprints.has(key)) return;
    const fingerprint = row ?? JSON.stringify([person.created_at, person.properties, person.distinct_ids, person.is_identified]);
    if (this.loaded.unchanged(key, fingerprint)) return;
    this.fingerprints.set(key, fingerprint);
    if (row !== undefined) this.wholes.push({ projectId, person: key, uuid: person.uuid, ids: person.distinct_ids });
    this.persons.set(key, { project_id: projectId, id: person.uuid, created_at: person.created_at, properties: person.properties, is_identified: person.is_identified });
    for (const d of person.distinct_ids) {
      this.distinctIds.set(`${projectId}\u0000${d}`, { project_id: projectId, distinct_id: d, person_id: person.uuid });
    }
  }

  /** The group a $groupidentify names, as the persons store now holds it (read once per batch). */
  private addGroup(projectId: number, properties: Record<string, unknown>): void {
    const named = groupIdentifyFields(properties);
    if (named === null) return;
    const type = groupTypeMapping(this.store, projectId).find((t) => t.group_type === named.groupType);
    if (type === undefined) return;
    const key = `${projectId}\u0000${type.group_type_index}\u0000${named.groupKey}`;
    if (this.groups.has(key)) return;
    const group = groupByKey(this.store, projectId, type.group_type_index, named.groupKey);
    if (group === undefined) return;
    this.groups.set(key, { project_id: projectId, type_index: group.group_type_index, key: group.group_key, created_at: group.created_at, properties: group.group_properties });
  }

  addStored(projectId: number, row: StoredEventValue): void {
    if (!this.text.claim(projectId, row.uuid)) return;
    this.addDecoded(projectId, row);
  }

  // A claimed event's line from its decoded row.
  private addDecoded(projectId: number, row: StoredEventValue): void {
    if (row.event === '$groupidentify') this.addGroup(projectId, row.properties);
    this.text.writeEvent({
      project_id: projectId, uuid: row.uuid, event: row.event, distinct_id: row.distinct_id,
      person_id: this.resolve(projectId, row.distinct_id, row.person_id), timestamp: row.timestamp, properties: row.properties,
    });
  }

  /**
   * An event's line from its row's bytes: the fields copied from them, the properties
   * written as JSON from their msgpack (./columnar/json-bytes.ts), so the row is not decoded.
   * False, with nothing claimed or written, for a row that is not read so: the caller decodes it.
   */
  private addRowBytes(projectId: number, b: Buffer): boolean {
    if (!rowValueRanges(b, ROW_KEYS, ranges)) return false;
    const uuid = rowString(b, UUID);
    const distinctId = rowString(b, DISTINCT_ID);
    if (uuid === null || distinctId === null || !rowStringBytes(b, TIMESTAMP) || !rowStringBytes(b, EVENT) || ranges[2 * PROPERTIES] < 0) return false;
    // The stored person: a uuid, or nil.
    let stored: string | null = null;
    if (ranges[2 * PERSON_ID] >= 0 && b[ranges[2 * PERSON_ID]] !== 0xc0) {
      stored = rowString(b, PERSON_ID);
      if (stored === null) return false;
    }
    // A $groupidentify's group is read from its decoded properties (rare).
    if (rowStringIs(b, EVENT, GROUP_IDENTIFY)) return false;
    if (!this.text.claim(projectId, uuid)) return true;
    const personId = this.resolve(projectId, distinctId, stored);
    const { sink } = this.text;
    this.text.startLine(projectId);
    writeAscii(sink, '"uuid":');
    rowStringAsJson(sink, b, UUID);
    writeAscii(sink, ',"event":');
    rowStringAsJson(sink, b, EVENT);
    writeAscii(sink, ',"distinct_id":');
    rowStringAsJson(sink, b, DISTINCT_ID);
    writeAscii(sink, ',"person_id":');
    writeUuidString(sink, personId);
    writeAscii(sink, ',"timestamp":');
    rowStringAsJson(sink, b, TIMESTAMP);
    writeAscii(sink, ',"properties":');
    if (writeMsgpackAsJson(sink, b, ranges[2 * PROPERTIES], ranges[2 * PROPERTIES + 1]) === NOT_JSON) {
      // Claimed and resolved already: the line is written from the decoded row.
      this.text.dropLine();
      const row = this.store.eventRows.get([projectId, uuid]);
      if (row) this.addDecoded(projectId, row);
      return true;
    }
    writeAscii(sink, '}');
    this.text.endLine(rowInstant(b, TIMESTAMP));
    return true;
  }

  /** Adds the log groups' events as the event store holds them. */
  addGroups(groups: readonly EventGroup[]): void {
    for (const group of groups) {
      // The keys alone where the group reads them without building its events: each event's row is what is loaded.
      for (const ev of group.keys ? group.keys() : group.events) {
        const bytes = this.store.eventRows.getBinaryFast([ev.project_id, ev.uuid]);
        // A uuid seen but not stored (a dropped event) is nil.
        if (bytes === undefined || bytes[0] === 0xc0) continue;
        // lmdb-js's shared read buffer (its \`length\` set to the value's size), which the next
        // read (the person's) overwrites: copied first.
        const size = bytes.length;
        const copy = size <= ROW_COPY_BYTES ? rowCopy : Buffer.allocUnsafe(size);
        copy.set(bytes.subarray(0, size));
        if (this.addRowBytes(ev.project_id, copy.subarray(0, size))) continue;
        const row = this.store.eventRows.get([ev.project_id, ev.uuid]);
        if (row) this.addStored(ev.project_id, row);
      }
    }
  }

  take(): ColumnarBatch {
    return { eventText: this.text.take(), persons: [...this.persons.values()], groups: [...this.groups.values()], distinctIds: [...this.distinctIds.values()] };
  }
}
