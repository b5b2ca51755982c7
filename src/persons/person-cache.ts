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
// its distinct ids its stored rows cover (0 until a new person is first written).
export interface Held {
  projectId: number;
  record: PersonRecord | null;
  storedIds: number;
  changed: boolean;
}

// Entries per project, in two generations: lookups promote from the older one, and
// once the newer one has filled up the older one is dropped. An LRU in effect, at the
// cost of a Map or two. Keys are the strings the events and records already hold, so
// their hashes are computed once, not per lookup. Generations turn over only between
// transactions (`settle`): an entry a transaction wrote or promoted stays until its
// flush, however many persons that transaction touches.
class TwoGenerationMap<V> {
  private current = new Map<number, Map<string, V>>();
  private previous = new Map<number, Map<string, V>>();
  private size = 0;
  constructor(private readonly half: number) {}

  get(projectId: number, key: string): V | undefined {
    const v = this.current.get(projectId)?.get(key);
    if (v !== undefined) return v;
    const old = this.previous.get(projectId)?.get(key);
    if (old !== undefined) this.set(projectId, key, old);
    return old;
  }

  set(projectId: number, key: string, value: V): void {
    let m = this.current.get(projectId);
    if (!m) this.current.set(projectId, (m = new Map()));
    const before = m.size;
    m.set(key, value);
    if (m.size > before) this.size++;
  }

  settle(): void {
    if (this.size < this.half) return;
    this.previous = this.current;
    this.current = new Map();
    this.size = 0;
  }
}

export class PersonCache {
  // Distinct id → person uuid, or null for "no person".
  distinctIds: TwoGenerationMap<string | null>;
  // Person uuid → the person.
  persons: TwoGenerationMap<Held>;
  groupTypes = new Map<number, GroupTypeRecord[]>();
  // The stored generation the cache matches; null while a transaction is changing it.
  private generation: number | null = null;
  private base = 0;

  // An entry is dropped only after `capacity / 2` newer ones, and never within the
  // transaction that wrote it.
  constructor(private readonly capacity = DEFAULT_CACHED_PERSONS) {
    this.distinctIds = new TwoGenerationMap(capacity / 2);
    this.persons = new TwoGenerationMap(capacity / 2);
  }

  // At the start of each transaction: drops everything if the store is not what the
  // cache matches (a deletion through the API, or a transaction of ours rolled back).
  validate(store: PersonsTables): void {
    const stored = store.personSeq.get(PERSONS_GENERATION_KEY) ?? 0;
    if (stored !== this.generation) {
      this.distinctIds = new TwoGenerationMap(this.capacity / 2);
      this.persons = new TwoGenerationMap(this.capacity / 2);
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
    this.distinctIds.settle();
    this.persons.settle();
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
