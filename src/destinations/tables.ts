// The hog functions, in the main environment: management state, written through the
// management write path. What the destinations write as they run (queued invocations,
// logs, metrics) is node-local and lives in an environment of its own (./runtime/env.ts).
import { plainMaps, table, type Tables } from '../store/index.js';

export const destinationsTables = {
  // [project_id, uuid] → the function (./types.ts).
  hogFunctions: table<unknown, [number, string]>('hog_functions', plainMaps),
  // project_id → a version every write moves, so the destinations pipeline re-reads a
  // project's functions only when one changed.
  hogFunctionVersions: table<number, number>('hog_function_versions'),
};

export type DestinationsTables = Tables<typeof destinationsTables>;
