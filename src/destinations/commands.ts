// Hog function writes as commands (src/state/, docs/decisions/0015): the route validates
// and compiles the function (in a worker), chooses its uuid and timestamps, and submits
// the whole record; the applier stores it and moves the project's functions version, which
// the destinations pipeline reads before each batch (so a change applies from the next one).
import type { DestinationsTables } from './tables.js';
import { errors } from '../errors.js';
import { commandsOn, type StateWrites } from '../state/index.js';
import { keepPersonOnEvents, type EventsTables } from '../events/index.js';
import { hogFunctionById, hogFunctionsVersion, projectHogFunctions } from './store.js';
import type { StoredHogFunction } from './types.js';

// The hog function commands apply to the destinations' tables, and say which projects'
// events keep their person as of the event (src/events/person-on-events.ts).
type CommandTables = DestinationsTables & EventsTables;
const defineCommand = commandsOn<CommandTables>();

// Moves the project's functions version; while the project has a destination that is not
// deleted (enabled or not: one enabled later runs on events stored meanwhile), its events
// keep their person, so each invocation gets the person as of its event.
function bumpVersion(store: CommandTables, projectId: number): void {
  store.hogFunctionVersions.put(projectId, hogFunctionsVersion(store, projectId) + 1);
  keepPersonOnEvents(store, projectId, projectHogFunctions(store, projectId).some((f) => f.type === 'destination' && !f.deleted));
}

export const insertHogFunctionCommand = defineCommand('hog_functions.insert', (store, fn: StoredHogFunction): StoredHogFunction => {
  if (hogFunctionById(store, fn.project_id, fn.id)) throw new Error(`hog function ${fn.id} exists already`);
  store.hogFunctions.put([fn.project_id, fn.id], fn);
  bumpVersion(store, fn.project_id);
  return fn;
});

export const saveHogFunctionCommand = defineCommand('hog_functions.save', (store, fn: StoredHogFunction): StoredHogFunction => {
  if (!hogFunctionById(store, fn.project_id, fn.id)) throw errors.notFound();
  store.hogFunctions.put([fn.project_id, fn.id], fn);
  bumpVersion(store, fn.project_id);
  return fn;
});

export interface Rearrangement {
  project_id: number;
  orders: [id: string, order: number][];
  updated_at: string;
}

export const rearrangeHogFunctionsCommand = defineCommand('hog_functions.rearrange', (store, r: Rearrangement): void => {
  for (const [id, order] of r.orders) {
    const fn = hogFunctionById(store, r.project_id, id);
    if (!fn || fn.deleted) throw errors.validation(`HogFunction with id ${id} does not exist`);
    store.hogFunctions.put([r.project_id, id], { ...fn, execution_order: order, updated_at: r.updated_at });
  }
  bumpVersion(store, r.project_id);
});

export const hogFunctionCommands = [insertHogFunctionCommand, saveHogFunctionCommand, rearrangeHogFunctionsCommand];

export const insertHogFunction = (writes: StateWrites, fn: StoredHogFunction) => writes.submit(insertHogFunctionCommand, fn);
export const saveHogFunction = (writes: StateWrites, fn: StoredHogFunction) => writes.submit(saveHogFunctionCommand, fn);
export const rearrangeHogFunctions = (writes: StateWrites, r: Rearrangement) => writes.submit(rearrangeHogFunctionsCommand, r);
