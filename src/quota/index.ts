// Public face of quotas: what /decide and /flags call per request, and the flush the
// service runs before closing its store.
export { flushFlagUsage, isFlagQuotaExceeded, recordFlagRequest } from './meter.js';
export { billingPeriod } from './period.js';
