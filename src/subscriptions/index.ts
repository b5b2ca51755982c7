// Public face of subscriptions: their table (the store's list) and the module.
export type { SubscriptionsTables } from './tables.js';
