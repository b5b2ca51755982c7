// Action writes as commands (src/state/, docs/decisions/0015). Ids are one global sequence
// the applier assigns; times and users are chosen by the submitter and carried in the payload.
import { commandsOn } from '../state/index.js';
import { SEQ_KEY, type ActionRecord } from './records.js';
import type { ActionsTables } from './tables.js';

const defineCommand = commandsOn<ActionsTables>();

export const insertActionCommand = defineCommand('actions.insert', (store, fields: Omit<ActionRecord, 'id'>): ActionRecord => {
  const id = ((store.actions.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
  const action: ActionRecord = { ...fields, id };
  store.actions.put(SEQ_KEY, id);
  store.actions.put([action.project_id, id], action);
  return action;
});

export const saveActionCommand = defineCommand('actions.save', (store, action: ActionRecord): ActionRecord => {
  store.actions.put([action.project_id, action.id], action);
  return action;
});

export const actionCommands = [insertActionCommand, saveActionCommand];
