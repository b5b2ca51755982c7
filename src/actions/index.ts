// Public face of actions: the records and how to read them (hog function filters compile an
// action's steps).
export { actionById, liveActionSteps, projectActions, type ActionRecord, type ActionStepRecord } from './records.js';
export type { ActionsTables } from './tables.js';
