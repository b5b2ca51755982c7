// The event store's tables: events by uuid, the time index, and the layout before
// docs/decisions/0012, read once to move it.
import { plainMaps, table, type Tables } from '../store/index.js';

export interface StoredEventValue {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
  person_id: string | null;
  elements_chain: string;
  // The person's properties as of this event (after its own updates, its `$set` on top, as
  // PostHog's events carry them), kept only for the projects that asked
  // (`personOnEventsProjects`): what the destinations give a function as `person`.
  person_properties?: Record<string, unknown>;
}

// A chunk of the events time index, newest first: timestamps descending, then uuids
// descending (./time-index.ts); with each event's name and distinct id, which the events
// API filters on without reading the rows that do not match.
export interface TimeChunk {
  ts: number[];
  uuids: string[];
  names: string[];
  distinctIds: string[];
}

export const eventsTables = {
  // [project_id, uuid] → the stored event, or null for a uuid seen but not stored (a
  // dropped event): idempotency and lookup by uuid in one read.
  eventRows: table<StoredEventValue | null, [number, string]>('event_rows', plainMaps),
  // [project_id, newest timestamp_ms, newest uuid] → a chunk of a transaction's events,
  // newest first: the time index (./time-index.ts).
  eventTimes: table<TimeChunk, [number, number, string]>('event_times', plainMaps),
  // project_id → true while the project's events keep their person's properties
  // (StoredEventValue.person_properties): set by the destinations while the project has a
  // hog function, read by the event store once per project and transaction.
  personOnEventsProjects: table<boolean, number>('person_on_events_projects'),
  // The layout before docs/decisions/0012, read once to move it (./migrate-layout.ts):
  // [project_id, timestamp_ms, uuid] → event, and [project_id, uuid] → timestamp_ms.
  legacyEvents: table<StoredEventValue, [number, number, string]>('events', plainMaps),
  legacyEventUuids: table<number, [number, string]>('event_uuids'),
};

export type EventsTables = Tables<typeof eventsTables>;
