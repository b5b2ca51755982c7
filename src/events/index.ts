// Public face of events: the event store (its consumer, its rows, the time index), the
// events API, and its module.
export { EVENT_STORE_CONSUMER, eventStorePosition } from './position.js';
export { uuidRecorded, eventByUuid } from './query.js';
export type { EventsTables, StoredEventValue } from './tables.js';
export { keepPersonOnEvents } from './person-on-events.js';
export { NOT_READ, rowPerson, type RowPerson } from './row-person.js';
export { rowValueRanges } from './row-fields.js';
// The step before storing, as a domain that provides one implements it (./pre-store.ts).
export type { OpenPreStoreStep, PreStoreDeclaration, PreStoreStep, Replacement, Transformed } from './pre-store.js';
