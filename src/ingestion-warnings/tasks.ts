// The ingestion warnings summary as a task of the query pool (src/pools/,
// workers/queries.ts): it reads every warning of 30 days (docs/decisions/0013).
import type { Task } from '../pools/index.js';
import type { WarningSummary } from './schemas.js';

export type WarningTasks = {
  warnings: Task<WarningsTask, WarningSummary[]>;
};

export interface WarningsTask {
  projectId: number;
  sinceMs: number;
  // Matches the type or the details' JSON text.
  search?: string;
}
