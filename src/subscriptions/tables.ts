// Subscriptions' table (./records.ts).
import { plainMaps, table, type Tables } from '../store/index.js';

export const subscriptionsTables = {
  // [project_id, id] → subscription, and [0, 0] → the last id handed out (ids are global, as PostHog's).
  subscriptions: table<unknown, [number, number]>('subscriptions', plainMaps),
};

export type SubscriptionsTables = Tables<typeof subscriptionsTables>;
