// The persons and groups lists, which scan. The persons list is newest first, filtered by
// search, email and property filters. With a filter it reads and tests every person
// until the page is full, about 17 µs a person here (1.6–1.9 s per 100,000 when nothing
// matches). The groups list reads every group of its type. They run in the query worker
// (the query pool: ./tasks.ts, workers/queries.ts; docs/decisions/0013).
import type { PersonsTables } from './tables.js';
import { personFilter } from './person-filter.js';
import { presentGroup, presentPerson } from './present.js';
import { scanWindow, type WindowScan } from '../http/paginate.js';
import { groupsOfType, personsNewestFirst } from './store.js';
import type { Group } from './schemas.js';
import type { GroupScanTask, PersonScan, PersonScanTask } from './tasks.js';

export function scanPersons(store: PersonsTables, task: PersonScanTask): PersonScan {
  const match = personFilter(task.filter, task.now);
  const matching = (function* () {
    for (const p of personsNewestFirst(store, task.projectId)) if (match(p)) yield presentPerson(p);
  })();
  return scanWindow(matching, task.window, task.withCount);
}

export function scanGroups(store: PersonsTables, task: GroupScanTask): WindowScan<Group> {
  const keyPart = task.keyPart.toLowerCase();
  const search = task.search?.toLowerCase() ?? null;
  const groups = groupsOfType(store, task.projectId, task.typeIndex)
    .filter((g) => g.group_key.toLowerCase().includes(keyPart))
    .filter((g) => search === null || g.group_key.toLowerCase() === search || JSON.stringify(g.group_properties).toLowerCase().includes(search))
    // Newest first, as PostHog lists them.
    .sort((a, b) => b.created_at.localeCompare(a.created_at) || a.group_key.localeCompare(b.group_key));
  return scanWindow(groups.map(presentGroup), task.window, false);
}
