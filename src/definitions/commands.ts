// The API's writes to definitions as commands (src/state/, docs/decisions/0015): each carries
// the whole record it leaves, so a node whose event store has not yet seen the definition
// holds the same after applying it (the event store then finds it stored and leaves it).
import { commandsOn } from '../state/index.js';
import type { EventDefinitionRecord, PropertyDefinitionRecord } from './records.js';
import { NO_GROUP } from './records.js';
import type { DefinitionsTables } from './tables.js';

const defineCommand = commandsOn<DefinitionsTables>();

const propertyKey = (projectId: number, d: PropertyDefinitionRecord): [number, PropertyDefinitionRecord['type'], number, string] =>
  [projectId, d.type, d.group_type_index ?? NO_GROUP, d.name];

export const savePropertyDefinitionCommand = defineCommand('definitions.property.save', (store, { projectId, definition }: { projectId: number; definition: PropertyDefinitionRecord }) => {
  const key = propertyKey(projectId, definition);
  store.propertyDefinitions.put(key, definition);
  store.definitionIds.put([projectId, definition.id], ['property', key[1], key[2], key[3]]);
  return definition;
});

export const deletePropertyDefinitionCommand = defineCommand('definitions.property.delete', (store, { projectId, definition }: { projectId: number; definition: PropertyDefinitionRecord }) => {
  store.propertyDefinitions.remove(propertyKey(projectId, definition));
  store.definitionIds.remove([projectId, definition.id]);
});

export const deleteEventDefinitionCommand = defineCommand('definitions.event.delete', (store, { projectId, definition }: { projectId: number; definition: EventDefinitionRecord }) => {
  store.eventDefinitions.remove([projectId, definition.name]);
  store.definitionIds.remove([projectId, definition.id]);
});

export const definitionCommands = [savePropertyDefinitionCommand, deletePropertyDefinitionCommand, deleteEventDefinitionCommand];
