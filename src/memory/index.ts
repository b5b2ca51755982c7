// Public face of memory upkeep: what every thread of a server runs so a burst's memory goes back.
export { collectWhenIdle, type IdleCollectOptions } from './idle-collect.js';
