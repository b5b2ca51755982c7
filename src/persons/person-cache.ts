// Persons the consumer has read or written, kept across its transactions so a person
// seen again is not read and decoded again. Only the consumer creates and changes
// persons; a deletion (an operation of the log the step applies outside its batch,
// ./operations.ts, or an old control-stream command) moves the stored generation, and so
// does every transaction of the consumer. The cache is trusted only while the
// stored generation is the one it expects: after a deletion, or after a transaction of
// ours that rolled back, it starts over.
import { PERSONS_GENERATION_KEY, type GroupTypeRecord, type PersonRecord, type PersonsTables } from './tables.js';
import { DEFAULT_CACHED_PERSONS } from '../settings.js';

// A person as the consumer knows it: null once merged away; `storedIds` is how many of
// its distinct ids its stored rows cover (0 until a new person is first written); `seen`
// the cache's sweep period it was last used in.
export interface Held {
  projectId: number;
  uuid: string;
  record: PersonRecord | null;
  storedIds: number;
  changed: boolean;
  seen: number;
}

// Entries per project. Keys are the strings the events and records already hold, so their
// hashes are computed once, not per lookup.
type ByProject<V> = Map<number, Map<string, V>>;

// Sets an entry; true when it is a new one.
function put<V>(map: ByProject<V>, projectId: number, key: string, value: V): boolean {
  let m = map.get(projectId);
  if (!m) map.set(projectId, (m = new Map()));
  const before = m.size;
  m.set(key, value);
  return m.size > before;
}

// Drops the entries `keep` refuses; how many are left.
function sweep<V>(map: ByProject<V>, keep: (value: V) => boolean): number {
  let left = 0;
  for (const m of map.values()) {
    for (const [key, value] of m) if (!keep(value)) m.delete(key);
    left += m.size;
  }
  return left;
}

// One lookup per event: a distinct id leads straight to the person held for it. A person
// is held once (`persons`, by uuid, is where a distinct id not yet cached finds it), so no
// id reaches a stale copy: every person an id entry holds is the one `persons` holds under
// its uuid. Entries go only between transactions (`settle`), and an id's entry and its
// person's go together: past `capacity` entries, what was not used since the last sweep is
// dropped (its `seen` stamp, shared by both), and everything if that leaves more than half.
// A working set within the capacity is never dropped, and a lookup writes one stamp, where
// two generations promoted every entry when the working set was half the capacity or more.
export class PersonCache {
  // Distinct id → its person, or null for "no person".
  private ids: ByProject<Held | null> = new Map();
  private idCount = 0;
  // Person uuid → the person.
  private persons: ByProject<Held> = new Map();
  private personCount = 0;
  // Sweeps so far: a person used since the last one has this as its `seen`.
  private period = 0;
  groupTypes = new Map<number, GroupTypeRecord[]>();
  // The stored generation the cache matches; null while a transaction is changing it.
  private generation: number | null = null;
  private base = 0;

  // An entry used since the last sweep is dropped only when more than `capacity / 2` are,
  // and never within the transaction that wrote it.
  constructor(private readonly capacity = DEFAULT_CACHED_PERSONS) {}

  // The person a distinct id is known to have (null: none); undefined when not cached.
  personOf(projectId: number, distinctId: string): Held | null | undefined {
    const h = this.ids.get(projectId)?.get(distinctId);
    if (h) h.seen = this.period;
    return h;
  }

  // `h` must be the person `persons` holds for its uuid (null: no person).
  setPersonOf(projectId: number, distinctId: string, h: Held | null): void {
    if (put(this.ids, projectId, distinctId, h)) this.idCount++;
  }

  // The person held under its uuid.
  person(projectId: number, uuid: string): Held | undefined {
    const h = this.persons.get(projectId)?.get(uuid);
    if (h) h.seen = this.period;
    return h;
  }

  // Holds a person no entry holds yet.
  keep(h: Held): void {
    h.seen = this.period;
    if (put(this.persons, h.projectId, h.uuid, h)) this.personCount++;
  }

  private clear(): void {
    this.ids = new Map();
    this.persons = new Map();
    this.idCount = 0;
    this.personCount = 0;
  }

  // At the start of each transaction: drops everything if the store is not what the
  // cache matches (a deletion through the API, or a transaction of ours rolled back).
  validate(store: PersonsTables): void {
    const stored = store.personSeq.get(PERSONS_GENERATION_KEY) ?? 0;
    if (stored !== this.generation) {
      this.clear();
      this.groupTypes = new Map();
    }
    this.generation = stored;
  }

  // Before a transaction's first change: from here until `advance` commits with it,
  // the cache is ahead of the store.
  changing(): void {
    if (this.generation === null) return;
    this.base = this.generation;
    this.generation = null;
  }

  // At the end of every transaction, once its changes are written.
  settle(): void {
    if (this.idCount <= this.capacity && this.personCount <= this.capacity) return;
    const period = this.period++;
    this.idCount = sweep(this.ids, (h) => h !== null && h.seen === period);
    this.personCount = sweep(this.persons, (h) => h.seen === period);
    if (this.idCount > this.capacity / 2 || this.personCount > this.capacity / 2) this.clear();
  }

  // Inside the transaction that made the changes, at its end.
  advance(store: PersonsTables): void {
    this.generation = this.base + 1;
    store.personSeq.put(PERSONS_GENERATION_KEY, this.generation);
  }
}

// For writes outside the step's batch (a deletion): makes the consumer's cache start over.
export function bumpPersonsGeneration(store: PersonsTables): void {
  store.personSeq.put(PERSONS_GENERATION_KEY, (store.personSeq.get(PERSONS_GENERATION_KEY) ?? 0) + 1);
}
