// Person writes as control-stream commands (src/state/, docs/decisions/0015, 0031). Nothing
// submits these any more: person deletions and flag hash keys travel the event log as
// operations (./operations.ts, docs/decisions/0032), ordered with the events. The appliers
// stay registered because a cluster's control stream may already hold such commands, and
// a follower halts on a command it has no applier for: old history must still replay.
import { commandsOn } from '../state/index.js';
import { deletePersonRows, putHashKeyOverrides, type HashKeyOverrides } from './operations.js';
import type { PersonsTables } from './tables.js';

// The person commands apply to the persons' tables.
const defineCommand = commandsOn<PersonsTables>();

export const deletePersonCommand = defineCommand('persons.delete', (store, { project_id: projectId, uuid }: { project_id: number; uuid: string }): void => {
  deletePersonRows(store, projectId, uuid);
});

export const writeHashKeyOverridesCommand = defineCommand(
  'persons.write_hash_key_overrides',
  (store, o: HashKeyOverrides & { project_id: number }): boolean => putHashKeyOverrides(store, o.project_id, o),
);

export const personCommands = [deletePersonCommand, writeHashKeyOverridesCommand];
