// Subscription writes as commands (src/state/, docs/decisions/0015). The next delivery date
// and every time are computed by the submitter and carried in the payload, so every node
// applies the same state. A delivery is claimed through the write path as well as by a
// lease: the attempt command answers whether the occurrence is still undelivered when it is
// applied, in the one order every node applies commands in, so an occurrence another node
// delivered (its outcome applied first) is never sent again.
import { commandsOn } from '../state/index.js';
import { SEQ_KEY, subscriptionById, type SubscriptionRecord } from './records.js';
import type { SubscriptionsTables } from './tables.js';

const defineCommand = commandsOn<SubscriptionsTables>();

export const insertSubscriptionCommand = defineCommand('subscriptions.insert', (store, fields: Omit<SubscriptionRecord, 'id'>): SubscriptionRecord => {
  const id = ((store.subscriptions.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
  const record: SubscriptionRecord = { ...fields, id };
  store.subscriptions.put(SEQ_KEY, id);
  store.subscriptions.put([fields.project_id, id], record);
  return record;
});

// A PATCH: the fields the request changed (delivery state and run requests are left as they are).
export const saveSubscriptionCommand = defineCommand('subscriptions.save', (store, p: Omit<SubscriptionRecord, 'delivery' | 'run_requested_at'>): SubscriptionRecord | null => {
  const current = subscriptionById(store, p.project_id, p.id);
  if (!current) return null;
  const next: SubscriptionRecord = { ...current, ...p };
  store.subscriptions.put([p.project_id, p.id], next);
  return next;
});

export const requestRunCommand = defineCommand('subscriptions.run', (store, p: { project_id: number; id: number; at: string }): SubscriptionRecord | null => {
  const current = subscriptionById(store, p.project_id, p.id);
  if (!current) return null;
  const next: SubscriptionRecord = { ...current, run_requested_at: p.at, delivery: { ...current.delivery, retry_at: null, attempts: 0 } };
  store.subscriptions.put([p.project_id, p.id], next);
  return next;
});

// Which occurrence a delivery is for: a scheduled one (its next_delivery_date) or one asked for now.
export interface Occurrence {
  kind: 'schedule' | 'now';
  due: string;
}

const stillDue = (s: SubscriptionRecord, o: Occurrence) => (o.kind === 'schedule' ? s.next_delivery_date === o.due : s.run_requested_at === o.due);

// An attempt begins: the record (attempts counted) when the occurrence is still undelivered, else null.
export const attemptCommand = defineCommand('subscriptions.attempt', (store, p: { project_id: number; id: number } & Occurrence): SubscriptionRecord | null => {
  const current = subscriptionById(store, p.project_id, p.id);
  if (!current || !stillDue(current, p)) return null;
  const next: SubscriptionRecord = { ...current, delivery: { ...current.delivery, attempts: current.delivery.attempts + 1 } };
  store.subscriptions.put([p.project_id, p.id], next);
  return next;
});

export interface OutcomePayload extends Occurrence {
  project_id: number;
  id: number;
  at: string;
  // null: delivered. Else the failure, retried from retry_at, or given up when retry_at is null.
  error: string | null;
  retry_at: string | null;
  // A scheduled occurrence done with (delivered or given up): the one after it.
  next_delivery_date: string | null;
}

export const outcomeCommand = defineCommand('subscriptions.outcome', (store, p: OutcomePayload): SubscriptionRecord | null => {
  const current = subscriptionById(store, p.project_id, p.id);
  if (!current || !stillDue(current, p)) return null;
  const retrying = p.error !== null && p.retry_at !== null;
  const next: SubscriptionRecord = {
    ...current,
    delivery: {
      attempts: retrying ? current.delivery.attempts : 0, retry_at: retrying ? p.retry_at : null, last_error: p.error,
      last_delivered_at: p.error === null ? p.at : current.delivery.last_delivered_at,
    },
  };
  if (!retrying && p.kind === 'schedule') next.next_delivery_date = p.next_delivery_date;
  if (!retrying && p.kind === 'now') next.run_requested_at = null;
  store.subscriptions.put([p.project_id, p.id], next);
  return next;
});

export const subscriptionCommands = [insertSubscriptionCommand, saveSubscriptionCommand, requestRunCommand, attemptCommand, outcomeCommand];
