// Public face of definitions: the step the event store runs to record them, the types HogQL
// reads properties as, and the tables.
export { createDefinitionsStep, MAX_KNOWN, type DefinitionsPass, type GroupTypeIndexOf } from './step.js';
export { propertyTypesFor, type PropertyTypes } from './read.js';
export { detectPropertyType } from './infer.js';
export { PROPERTY_TYPES, type PropertyType } from './records.js';
export type { DefinitionsTables } from './tables.js';
