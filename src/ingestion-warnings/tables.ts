// The ingestion warnings' table (./store.ts, ./retention.ts).
import { table, type Tables } from '../store/index.js';

// [project_id, timestamp_ms, event uuid, n] → why an event was not fully processed.
export interface IngestionWarningRecord {
  type: string;
  timestamp: string;
  details: Record<string, unknown>;
}

export type IngestionWarningKey = [projectId: number, timestampMs: number, eventUuid: string, n: number];

export const ingestionWarningsTables = {
  ingestionWarnings: table<IngestionWarningRecord, IngestionWarningKey>('ingestion_warnings'),
};

export type IngestionWarningsTables = Tables<typeof ingestionWarningsTables>;
