// The events domain's tasks for the query pool (src/pools/, workers/queries.ts): the
// listings and values scans, off the HTTP thread (docs/decisions/0013).
import type { Task } from '../pools/index.js';
import type { EventQuery, EventRow } from './query.js';
import type { ValuesQuery } from './values.js';

export type EventTasks = {
  events: Task<EventQuery, { rows: EventRow[]; more: boolean }>;
  values: Task<ValuesQuery, string[]>;
};
