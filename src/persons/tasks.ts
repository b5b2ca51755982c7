// The persons domain's tasks for the query pool (src/pools/, workers/queries.ts): the
// lists that scan, as plain data for the trip to the worker (docs/decisions/0013).
import type { Task } from '../pools/index.js';
import type { PersonFilterSpec } from './person-filter.js';
import type { PageWindow, WindowScan } from '../http/paginate.js';
import type { Group, Person } from './schemas.js';

export type PersonTasks = {
  persons: Task<PersonScanTask, PersonScan>;
  groups: Task<GroupScanTask, WindowScan<Group>>;
};

export interface PersonScanTask {
  projectId: number;
  filter: PersonFilterSpec;
  // The clock the property filters' relative dates are read against.
  now: number;
  window: PageWindow;
  withCount: boolean;
}

export type PersonScan = WindowScan<Person>;

export interface GroupScanTask {
  projectId: number;
  typeIndex: number;
  // Case-insensitive substring of the group key.
  keyPart: string;
  // The exact group key or a substring of its properties' JSON, case-insensitive.
  search: string | null;
  window: PageWindow;
}
