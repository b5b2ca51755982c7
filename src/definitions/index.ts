// Public face of definitions: the step the event store runs to record them, the types HogQL
// reads properties as, and the tables.
export { createDefinitionsStep, type DefinitionsPass } from './step.js';
export { propertyTypesFor, type PropertyTypes } from './read.js';
export { detectPropertyType } from './infer.js';
export type { PropertyType } from './records.js';
export type { DefinitionsTables } from './tables.js';
