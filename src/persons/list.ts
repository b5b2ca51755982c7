// The persons list: newest first, filtered by search, email and property filters. With
// a filter it reads and tests every person until the page is full, about 17 µs a
// person here (1.6–1.9 s per 100,000 when nothing matches). It therefore runs in a
// query worker (workers/queries.ts), so the HTTP thread (capture's acks, /decide)
// never waits on a scan.
import type { Store } from '../store/env.js';
import { personFilter, type PersonFilterSpec } from './person-filter.js';
import { presentPerson } from './present.js';
import { scanWindow, type PageWindow, type WindowScan } from './page.js';
import { personsNewestFirst } from './store.js';
import type { Person } from './schemas.js';

// Plain data, for the trip to the worker.
export interface PersonScanTask {
  projectId: number;
  filter: PersonFilterSpec;
  // The clock the property filters' relative dates are read against.
  now: number;
  window: PageWindow;
  withCount: boolean;
}

export type PersonScan = WindowScan<Person>;

export function scanPersons(store: Store, task: PersonScanTask): PersonScan {
  const match = personFilter(task.filter, task.now);
  const matching = (function* () {
    for (const p of personsNewestFirst(store, task.projectId)) if (match(p)) yield presentPerson(p);
  })();
  return scanWindow(matching, task.window, task.withCount);
}
