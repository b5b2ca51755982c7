// The events a batch staged for the columnar store (src/insights/columnar/stage.ts), read
// back from its JSON lines as the columnar store's loader gives them to DuckDB.
import type { StagedEvents } from '../../src/insights/columnar/stage.js';

export interface StagedEvent {
  project: number;
  uuid: string;
  event: string;
  distinct_id: string;
  person_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

export function stagedEvents(text: StagedEvents | null): StagedEvent[] {
  if (text === null) return [];
  return text.bytes.toString('utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as StagedEvent);
}
