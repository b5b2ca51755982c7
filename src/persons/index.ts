// Public face of persons and groups: the consumer step, the API routes and the reads
// other domains (flag evaluation, events) use.
export { createPersonStep, DROPPED, type EventPreparation } from './step.js';
export { personRoutes } from './routes.js';
export {
  groupProperties, groupTypeMapping, hashKeyOverrides, personByDistinctId, personByUuid,
  personRecordByDistinctId, personRowBytes, resolvePersonUuid, wholePersonOfRow,
} from './store.js';
export { personCommands } from './commands.js';
export { applyPersonOperation } from './operations.js';
export { personOperations, type PersonOperations } from './operation-writer.js';
export { personUuid } from './person-uuid.js';
export type { DistinctIdRecord, PersonRecord, PersonsTables } from './tables.js';
