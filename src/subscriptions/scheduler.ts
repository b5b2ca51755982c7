// Delivering subscriptions, once per occurrence across the cluster. Every tick each node
// looks for subscriptions due (their next delivery date passed, or a run asked for now, and
// not waiting out a retry); for each it takes a lease of the cluster's (src/cluster/leases.ts,
// the claims bucket: one holder per subscription while it delivers; a dead holder's lapses)
// and then the attempt command (./commands.ts), which answers, in the control stream's one
// order, whether the occurrence is still undelivered. The holder renders the pictures
// (the exports' worker pool), sends them, and records the outcome: delivered (the next date
// follows), or failed and retried after a backoff, or given up after the last attempt (the
// next date follows all the same, the error kept on the subscription and logged).
import type { Leases } from '../cluster/index.js';
import type { Logger } from '../logger.js';
import type { StateWrites } from '../state/index.js';
import { attemptCommand, outcomeCommand, type Occurrence } from './commands.js';
import type { Message, RenderedItem } from './message.js';
import { allSubscriptions, type SubscriptionRecord } from './records.js';
import { nextDelivery } from './schedule.js';
import type { SubscriptionsTables } from './tables.js';

export interface SchedulerSettings {
  tickMs: number;
  // The first retry waits this long; each further one twice the last.
  retryMs: number;
  attempts: number;
}

export interface SchedulerDeps {
  store: SubscriptionsTables;
  writes: StateWrites;
  leases: Leases;
  // Whether what it sends still exists (a deleted insight or dashboard sends nothing).
  live(s: SubscriptionRecord): boolean;
  // The pictures to send; throws when the subscription cannot be rendered at all.
  render(s: SubscriptionRecord): Promise<RenderedItem[]>;
  message(s: SubscriptionRecord, items: RenderedItem[], at: Date): Message;
  send(s: SubscriptionRecord, m: Message): Promise<void>;
  timezone(projectId: number): string | undefined;
  settings: SchedulerSettings;
  log: Logger;
  now(): Date;
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

// The occurrence due at `now`, if any.
export function dueOccurrence(s: SubscriptionRecord, now: number): Occurrence | null {
  if (s.deleted || !s.enabled) return null;
  if (s.delivery.retry_at !== null && Date.parse(s.delivery.retry_at) > now) return null;
  if (s.run_requested_at !== null) return { kind: 'now', due: s.run_requested_at };
  if (s.next_delivery_date !== null && Date.parse(s.next_delivery_date) <= now) return { kind: 'schedule', due: s.next_delivery_date };
  return null;
}

export function createScheduler(deps: SchedulerDeps) {
  let timer: NodeJS.Timeout | null = null;
  let ticking: Promise<number> | null = null;
  let closed = false;

  async function deliver(s: SubscriptionRecord, occurrence: Occurrence): Promise<boolean> {
    // As PostHog: a subscription to a deleted insight or dashboard is not due (nothing is
    // sent, no error); brought back, it sends its next occurrence.
    if (!deps.live(s)) return false;
    const key = `subscription.${s.project_id}.${s.id}`;
    const lease = await deps.leases.acquire(key, { lost: (err) => deps.log.warn('a subscription delivery lost its claim', { subscription_id: s.id, error: err.message }) });
    if (!lease) return false;
    try {
      const current = await deps.writes.submit(attemptCommand, { project_id: s.project_id, id: s.id, ...occurrence });
      if (!current) return false;
      const at = deps.now();
      let error: string | null = null;
      try {
        const items = await deps.render(current);
        await deps.send(current, deps.message(current, items, at));
      } catch (err) {
        error = messageOf(err);
      }
      if (closed && error !== null) return true;
      const last = current.delivery.attempts >= deps.settings.attempts;
      const retryAt = error !== null && !last ? new Date(at.getTime() + deps.settings.retryMs * 2 ** (current.delivery.attempts - 1)).toISOString() : null;
      const zone = deps.timezone(s.project_id) ?? 'UTC';
      // The occurrence after this one, and after now: a node down for a week sends once, not seven times.
      const nextDate = occurrence.kind === 'schedule'
        ? nextDelivery(current, Math.max(Date.parse(occurrence.due), at.getTime()), zone)
        : current.next_delivery_date;
      if (error === null) deps.log.info('subscription delivered', { subscription_id: s.id, target_type: s.target_type, occurrence: occurrence.due });
      else if (retryAt) deps.log.warn('a subscription delivery failed; it will be retried', { subscription_id: s.id, error, retry_at: retryAt, attempt: current.delivery.attempts });
      else deps.log.error('a subscription delivery failed for good', { subscription_id: s.id, error, attempts: current.delivery.attempts });
      await deps.writes.submit(outcomeCommand, {
        project_id: s.project_id, id: s.id, ...occurrence, at: at.toISOString(), error, retry_at: retryAt, next_delivery_date: nextDate,
      });
      return true;
    } finally {
      await lease.release();
    }
  }

  // One look at every subscription; resolves with how many deliveries this node attempted.
  async function tick(): Promise<number> {
    const now = deps.now().getTime();
    let attempted = 0;
    for (const s of allSubscriptions(deps.store)) {
      if (closed) break;
      const occurrence = dueOccurrence(s, now);
      if (!occurrence) continue;
      try {
        if (await deliver(s, occurrence)) attempted++;
      } catch (err) {
        deps.log.error('a subscription delivery could not be recorded', { subscription_id: s.id, error: messageOf(err) });
      }
    }
    return attempted;
  }

  // Ticks never overlap: a tick still running is the one asked for.
  function runTick(): Promise<number> {
    ticking ??= tick().finally(() => { ticking = null; });
    return ticking;
  }

  return {
    tick: runTick,
    start() {
      timer = setInterval(() => { void runTick(); }, deps.settings.tickMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await ticking;
    },
  };
}

export type Scheduler = ReturnType<typeof createScheduler>;
