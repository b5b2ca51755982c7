// The LMDB environment: one file under the data dir, named sub-databases opened
// here and only here so every thread opens them with identical options.
import { open, type RootDatabase, type Database } from 'lmdb';
import { mkdirSync, accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type {
  DistinctIdKey, GroupKey, GroupRecord, GroupTypeRecord, HashKeyOverrideKey, PersonIdKey, PersonKey, PersonLocation, PersonRow,
} from './persons.js';
import type { IngestionWarningKey, IngestionWarningRecord } from './ingestion-warnings.js';

export interface Store {
  path: string;
  root: RootDatabase;
  // The embedded event log lives in its own environment: LMDB allows one writer per
  // environment, so capture's appends never queue behind a consumer's transaction,
  // and its commits are synchronous to disk (see docs/decisions/0001).
  logRoot: RootDatabase;
  logPath: string;
  // Embedded event log: monotonic sequence → one encoded group of events.
  log: Database<Buffer, number>;
  // Beside each log record: [events in it, events appended through it], so a consumer's
  // lag in events is two reads (src/log/lag.ts). Records written before it have none.
  logCounts: Database<[number, number], number>;
  // [project_id, uuid] → the stored event, or null for a uuid seen but not stored (a
  // dropped event): idempotency and lookup by uuid in one read.
  eventRows: Database<StoredEventValue | null, [number, string]>;
  // [project_id, newest timestamp_ms, newest uuid] → a chunk of a transaction's events,
  // newest first: the time index (src/events/time-index.ts).
  eventTimes: Database<TimeChunk, [number, number, string]>;
  // The layout before docs/decisions/0012, read once to move it (src/events/migrate-layout.ts):
  // [project_id, timestamp_ms, uuid] → event, and [project_id, uuid] → timestamp_ms.
  legacyEvents: Database<StoredEventValue, [number, number, string]>;
  legacyEventUuids: Database<number, [number, string]>;
  // consumer name → last log sequence it applied (and 'log_pruner' → the sequence the
  // embedded log is pruned through; retention takes the minimum over the others).
  positions: Database<number, string>;
  // Organizations, projects, users, keys: small records keyed by [kind, id].
  tenancy: Database<unknown, (string | number)[]>;
  // Feature flags and cohorts, [project_id, id] → record: a project's are one key range.
  flags: Database<unknown, [number, number]>;
  cohorts: Database<unknown, [number, number]>;
  // Static cohort membership both ways: ['d', project_id, distinct_id, cohort_id] and
  // ['c', project_id, cohort_id, distinct_id] → true.
  cohortMembers: Database<true, (string | number)[]>;
  // ['seq', kind] id sequences and ['version', project_id] flag definitions versions.
  flagState: Database<number, (string | number)[]>;
  // Organization quotas: ['limit', org_id] → limits, ['usage', org_id, resource, period] → count.
  quota: Database<unknown, (string | number)[]>;
  // Persons and groups (src/store/persons.ts says what each holds).
  persons: Database<PersonLocation, PersonKey>;
  personDistinctIds: Database<PersonRow, DistinctIdKey>;
  // [project_id, numeric person id] → uuid: lookup by id and listing in creation order.
  personIds: Database<string, PersonIdKey>;
  // [project_id, uuid of a merged-away person] → uuid of the person it merged into.
  personRedirects: Database<string, PersonKey>;
  // project_id → the last numeric person id handed out.
  personSeq: Database<number, number>;
  groupTypes: Database<GroupTypeRecord[], number>;
  groups: Database<GroupRecord, GroupKey>;
  ingestionWarnings: Database<IngestionWarningRecord, IngestionWarningKey>;
  // [project_id, person uuid, flag key] → hash key (experience continuity).
  hashKeyOverrides: Database<string, HashKeyOverrideKey>;
  // [log id, sequence] → a log record no consumer could decode, and [log id, sequence,
  // consumer, index] → one event a consumer could not apply: set aside (src/log/consumers/).
  deadLetters: Database<DeadLetter, DeadLetterKey>;
  // Insights (src/insights/api/insight-store.ts): [project_id, id] → insight, and [0, 0] →
  // the last id handed out (ids are global, as PostHog's).
  insights: Database<unknown, [number, number]>;
  // Cache key → a query's last result, when and at which log position it was computed.
  insightCache: Database<unknown, string>;
  // Hog functions, [project_id, uuid] → the function (src/destinations/types.ts), and
  // project_id → a version every write moves, so the destinations pipeline re-reads a
  // project's functions only when one changed.
  hogFunctions: Database<unknown, [number, string]>;
  hogFunctionVersions: Database<number, number>;
  // Exported assets (src/exports/api/asset-store.ts): [project_id, id] → asset, and [0, 0] →
  // the last id handed out (ids are global, as PostHog's). Their files live beside, under
  // <data>/exports/.
  exports: Database<unknown, [number, number]>;
  close(): Promise<void>;
}

export interface StoredEventValue {
  uuid: string;
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
  person_id: string | null;
  elements_chain: string;
}

// A chunk of the events time index, newest first: timestamps descending, then uuids
// descending (src/events/time-index.ts); with each event's name and distinct id, which
// the events API filters on without reading the rows that do not match.
export interface TimeChunk {
  ts: number[];
  uuids: string[];
  names: string[];
  distinctIds: string[];
}

export type DeadLetterKey = [logId: string, seq: number] | [logId: string, seq: number, consumer: string, index: number];

export interface DeadLetter {
  error: string;
  quarantined_at: string;
  // The record's bytes as the log held them, or one event's JSON (null when there was
  // none to keep).
  record: Uint8Array | null;
}

export class DataDirError extends Error {}

export function openStore(dataDir: string, opts: { readOnly?: boolean } = {}): Store {
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new DataDirError(`data directory ${dataDir} is not usable: ${(err as Error).message}`);
  }
  const path = join(dataDir, 'hedgerow.lmdb');
  const logPath = join(dataDir, 'log.lmdb');
  let root: RootDatabase;
  let logRoot: RootDatabase;
  try {
    root = open({ path, maxDbs: 32, readOnly: opts.readOnly ?? false });
    // Without overlapping sync a commit resolves only once it is synced to disk.
    logRoot = open({ path: logPath, maxDbs: 2, overlappingSync: false, readOnly: opts.readOnly ?? false });
  } catch (err) {
    throw new DataDirError(`cannot open LMDB in ${dataDir}: ${(err as Error).message}`);
  }
  // Events and person records are written once per event or change: msgpack without
  // records (plain maps) encodes them in 60–80% of the time and decodes them faster
  // too. (Without shared structures, records repeat their key list inside every value.)
  // Values written with records earlier still decode. lmdb-js passes msgpackr options
  // through; its typings do not list them. variableMapSize: an object of 65,536 keys or
  // more (a client's properties, a person's accumulated ones) needs a 32-bit map header,
  // which msgpackr's fixed 16-bit one cannot hold; sizing each map also encodes faster
  // (Object.keys rather than for-in, measured 3.4–3.9 vs 5.9–6.4 µs for an event row).
  const plainMaps: object = { useRecords: false, variableMapSize: true };
  const log = logRoot.openDB<Buffer, number>({ name: 'log', encoding: 'binary' });
  const logCounts = logRoot.openDB<[number, number], number>({ name: 'log_counts' });
  const eventRows = root.openDB<StoredEventValue | null, [number, string]>({ name: 'event_rows', ...plainMaps });
  const eventTimes = root.openDB<TimeChunk, [number, number, string]>({ name: 'event_times', ...plainMaps });
  const legacyEvents = root.openDB<StoredEventValue, [number, number, string]>({ name: 'events', ...plainMaps });
  const legacyEventUuids = root.openDB<number, [number, string]>({ name: 'event_uuids' });
  const positions = root.openDB<number, string>({ name: 'positions' });
  const tenancy = root.openDB<unknown, (string | number)[]>({ name: 'tenancy' });
  const flags = root.openDB<unknown, [number, number]>({ name: 'flags' });
  const cohorts = root.openDB<unknown, [number, number]>({ name: 'cohorts' });
  const cohortMembers = root.openDB<true, (string | number)[]>({ name: 'cohort_members' });
  const flagState = root.openDB<number, (string | number)[]>({ name: 'flag_state' });
  const quota = root.openDB<unknown, (string | number)[]>({ name: 'quota' });
  const persons = root.openDB<PersonLocation, PersonKey>({ name: 'persons', ...plainMaps });
  const personDistinctIds = root.openDB<PersonRow, DistinctIdKey>({ name: 'person_distinct_ids', ...plainMaps });
  const personIds = root.openDB<string, PersonIdKey>({ name: 'person_ids' });
  const personRedirects = root.openDB<string, PersonKey>({ name: 'person_redirects' });
  const personSeq = root.openDB<number, number>({ name: 'person_seq' });
  const groupTypes = root.openDB<GroupTypeRecord[], number>({ name: 'group_types' });
  const groups = root.openDB<GroupRecord, GroupKey>({ name: 'groups' });
  const ingestionWarnings = root.openDB<IngestionWarningRecord, IngestionWarningKey>({ name: 'ingestion_warnings' });
  const hashKeyOverrides = root.openDB<string, HashKeyOverrideKey>({ name: 'hash_key_overrides' });
  const deadLetters = root.openDB<DeadLetter, DeadLetterKey>({ name: 'dead_letters' });
  const insights = root.openDB<unknown, [number, number]>({ name: 'insights', ...plainMaps });
  const insightCache = root.openDB<unknown, string>({ name: 'insight_cache', ...plainMaps });
  const hogFunctions = root.openDB<unknown, [number, string]>({ name: 'hog_functions', ...plainMaps });
  const hogFunctionVersions = root.openDB<number, number>({ name: 'hog_function_versions' });
  const exports = root.openDB<unknown, [number, number]>({ name: 'exports', ...plainMaps });
  return {
    path, root, logRoot, logPath, log, logCounts, eventRows, eventTimes, legacyEvents, legacyEventUuids, positions, tenancy,
    flags, cohorts, cohortMembers, flagState, quota,
    persons, personDistinctIds, personIds, personRedirects, personSeq, groupTypes, groups, ingestionWarnings, hashKeyOverrides, deadLetters,
    insights, insightCache,
    hogFunctions, hogFunctionVersions, exports,
    close: async () => { await logRoot.close(); await root.close(); },
  };
}
