// A subscription as PostHog's API shows it (its newest serializer's keys), plus where its
// delivery stands (`delivery`: beyond PostHog, which keeps that to itself).
import { userBasic, type TenancyStore } from '../access/index.js';
import { summary } from './rrule.js';
import type { SubscriptionRecord } from './records.js';

// PostHog writes these instants without fractions: "2022-01-01T00:00:00Z".
const instant = (iso: string | null) => (iso === null ? null : iso.replace(/\.\d{3}Z$/, 'Z'));

export interface ResourceInfo {
  insight_short_id: string | null;
  resource_name: string | null;
}

export function presentSubscription(s: SubscriptionRecord, tenancy: TenancyStore, resource: ResourceInfo): Record<string, unknown> {
  const creator = s.created_by === null ? undefined : tenancy.user(s.created_by);
  return {
    id: s.id, dashboard: s.dashboard, insight: s.insight, insight_short_id: resource.insight_short_id, resource_name: resource.resource_name,
    dashboard_export_insights: s.dashboard_export_insights, target_type: s.target_type, target_value: s.target_value, frequency: s.frequency,
    interval: s.interval, byweekday: s.byweekday, bysetpos: s.bysetpos, count: s.count, start_date: instant(s.start_date), until_date: instant(s.until_date),
    created_at: s.created_at, created_by: creator ? userBasic(creator) : null, deleted: s.deleted, enabled: s.enabled, title: s.title,
    next_delivery_date: instant(s.next_delivery_date), integration_id: null, invite_message: null, summary: summary(s), summary_enabled: false,
    summary_prompt_guide: '', delivery: s.delivery,
  };
}
