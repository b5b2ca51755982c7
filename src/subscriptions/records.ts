// Subscriptions in LMDB (./tables.ts), written only through ./commands.ts: PostHog's fields,
// and where its delivery stands (the occurrence being delivered, its attempts, the last error).
import type { Frequency, Weekday } from './rrule.js';
import type { SubscriptionsTables } from './tables.js';
import { projectRows } from '../store/index.js';

export const TARGET_TYPES = ['email', 'slack', 'webhook'] as const;
export type TargetType = (typeof TARGET_TYPES)[number];

export interface DeliveryState {
  // Attempts at the occurrence due now (0 once it is delivered or given up).
  attempts: number;
  // A failed attempt is tried again from here (ISO).
  retry_at: string | null;
  last_error: string | null;
  last_delivered_at: string | null;
}

export interface SubscriptionRecord {
  id: number;
  project_id: number;
  dashboard: number | null;
  insight: number | null;
  // The dashboard's insights to send (empty: every insight tile, in layout order).
  dashboard_export_insights: number[];
  title: string | null;
  target_type: TargetType;
  target_value: string;
  frequency: Frequency;
  interval: number;
  count: number | null;
  byweekday: Weekday[] | null;
  bysetpos: number | null;
  start_date: string;
  until_date: string | null;
  // Computed by the writer in the project's time zone; null once the schedule has ended.
  next_delivery_date: string | null;
  created_at: string;
  created_by: number | null;
  deleted: boolean;
  enabled: boolean;
  // `hedgerow subscription run ID`: a delivery asked for now, outside the schedule.
  run_requested_at: string | null;
  delivery: DeliveryState;
}

export const SEQ_KEY: [number, number] = [0, 0];

export function subscriptionById(store: SubscriptionsTables, projectId: number, id: number): SubscriptionRecord | undefined {
  return id > 0 ? (store.subscriptions.get([projectId, id]) as SubscriptionRecord | undefined) : undefined;
}

export function projectSubscriptions(store: SubscriptionsTables, projectId: number): SubscriptionRecord[] {
  return projectRows<SubscriptionRecord>(store.subscriptions, projectId);
}

export function allSubscriptions(store: SubscriptionsTables): SubscriptionRecord[] {
  return [...store.subscriptions.getRange({ start: [1, 1] })].map((e) => e.value as SubscriptionRecord);
}

// Ids are global: the CLI names one without its project.
export function findSubscription(store: SubscriptionsTables, id: number): SubscriptionRecord | undefined {
  return allSubscriptions(store).find((s) => s.id === id);
}
