// When a subscription is next delivered (pure): the first occurrence of its rule strictly
// after `from`, in the project's time zone. PostHog's hourly job looks 15 minutes ahead, so
// it never dates a delivery less than that from now; hedgerow's scheduler looks every tick
// (./scheduler.ts) and dates the very next occurrence.
import { nextOccurrence, type Rule } from './rrule.js';

export function nextDelivery(rule: Rule, fromMs: number, zone: string): string | null {
  const at = nextOccurrence(rule, fromMs, zone);
  return at === null ? null : new Date(at).toISOString();
}
