// Records and keys of the ingestion warnings collection (src/ingestion-warnings/).

// [project_id, timestamp_ms, event uuid, n] → why an event was not fully processed.
export interface IngestionWarningRecord {
  type: string;
  timestamp: string;
  details: Record<string, unknown>;
}

export type IngestionWarningKey = [projectId: number, timestampMs: number, eventUuid: string, n: number];
