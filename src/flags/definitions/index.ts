// Public face of flag storage for the evaluation side (/decide, /flags and their workers):
// one cheap version read to know when to recompile, the definitions the pure core takes,
// and static cohort membership by distinct id.
export { loadFlagDefinitions } from './load.js';
export type { LoadedDefinitions } from './load.js';
export { definitionsVersion, staticCohortsOf } from './store.js';
