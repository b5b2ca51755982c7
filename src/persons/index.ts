// Public face of persons and groups: the consumer step and the reads other domains (flag
// evaluation, events, insights) use. Its routes and commands are this module's own (start.ts,
// module.ts): consumer threads import this file and must not load the HTTP layer.
export { createPersonStep, DROPPED, type EventPreparation } from './step.js';
export {
  groupByKey, groupProperties, groupTypeMapping, hashKeyOverrides, personByDistinctId, personByUuid,
  personRecordByDistinctId, personRowBytes, personsNewestFirst, resolvePersonUuid, wholePersonOfRow,
} from './store.js';
export { groupIdentifyFields } from './groups.js';
export { applyPersonOperation } from './operations.js';
export { personOperations, type PersonOperations } from './operation-writer.js';
export { personUuid } from './person-uuid.js';
export type { DistinctIdRecord, GroupRecord, PersonRecord, PersonsTables } from './tables.js';
export { presentPerson } from './present.js';
