// Public face of quotas: the meter /decide, /flags and the local-evaluation feed count
// with, its write commands, and the billing period.
export { createFlagMeter, type FlagMeter } from './meter.js';
export { quotaCommands } from './commands.js';
export { billingPeriod } from './period.js';
export type { QuotaTables } from './tables.js';
