// A subscription request's body, as PostHog's subscription serializer reads it, and where
// hedgerow delivers: a webhook or a Slack incoming webhook (http(s) URLs) or email addresses.
// On PATCH only the fields sent are read; the rest are the record's.
import { errors } from '../errors.js';
import { parseDateTime } from '../exports/index.js';
import { FREQUENCIES, WEEKDAYS, type Frequency, type Weekday } from './rrule.js';
import { TARGET_TYPES, type SubscriptionRecord, type TargetType } from './records.js';

type Body = Record<string, unknown>;

export type SubscriptionFields = Pick<SubscriptionRecord,
  'dashboard' | 'insight' | 'dashboard_export_insights' | 'title' | 'target_type' | 'target_value' | 'frequency' | 'interval' | 'count' |
  'byweekday' | 'bysetpos' | 'start_date' | 'until_date' | 'deleted' | 'enabled'>;

// What the request's ids must be: the project's own, live.
export interface Targets {
  insight(id: number): { deleted: boolean } | undefined;
  dashboard(id: number): { deleted: boolean; insights: number[] } | undefined;
}

const TITLE_MAX = 100;
const EMAIL = /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/;

function pk(v: unknown, attr: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\d+$/.test(v.trim())) return Number(v);
  throw errors.validation(`Incorrect type. Expected pk value, received ${typeof v}.`, attr, 'incorrect_type');
}

function integer(v: unknown, attr: string, min: number): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw errors.validation('A valid integer is required.', attr, 'invalid');
  if (n < min) throw errors.validation(`Ensure this value is greater than or equal to ${min}.`, attr, 'min_value');
  return n;
}

function date(v: unknown, attr: string): string {
  const at = typeof v === 'string' ? parseDateTime(v) : null;
  if (!at) throw errors.dateTimeFormat(attr);
  return at.toISOString();
}

function httpUrl(value: string, attr: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw errors.validation('Enter a valid URL.', attr);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.validation('Enter a valid URL.', attr);
}

// What hedgerow posts Slack deliveries to, said wherever a Slack app's target is refused.
export const SLACK_SUPPORTED = 'hedgerow posts to a Slack incoming webhook: send target_type "slack" with the webhook\'s URL '
  + '(https://hooks.slack.com/services/…) as target_value, and no integration_id';

export function checkTarget(type: TargetType, value: string): void {
  if (value.trim() === '') throw errors.blank('target_value');
  if (type === 'slack' && !/^https?:\/\//i.test(value.trim())) {
    // PostHog's Slack app target is "channel id|#name"; there is no app here to post to it.
    throw errors.validation(`Not a URL: ${SLACK_SUPPORTED}.`, 'target_value');
  }
  if (type === 'email') {
    for (const address of value.split(',').map((a) => a.trim())) {
      if (!EMAIL.test(address)) throw errors.validation(`"${address}" is not an email address.`, 'target_value');
    }
  } else httpUrl(value.trim(), 'target_value');
}

// `current`: the record a PATCH changes (null on create: required fields must be sent).
export function parseSubscription(body: Body, current: SubscriptionFields | null, targets: Targets): SubscriptionFields {
  const has = (k: string) => body[k] !== undefined;
  const out: SubscriptionFields = current ? { ...current } : {
    dashboard: null, insight: null, dashboard_export_insights: [], title: null, target_type: 'email', target_value: '', frequency: 'daily',
    interval: 1, count: null, byweekday: null, bysetpos: null, start_date: '', until_date: null, deleted: false, enabled: true,
  };
  for (const k of ['target_type', 'target_value', 'frequency', 'start_date']) if (!current && !has(k)) throw errors.required(k);
  if (has('dashboard')) out.dashboard = pk(body.dashboard, 'dashboard');
  if (has('insight')) out.insight = pk(body.insight, 'insight');
  if (has('title')) {
    if (body.title !== null && typeof body.title !== 'string') throw errors.notAString('title');
    if (typeof body.title === 'string' && body.title.length > TITLE_MAX) throw errors.tooLong('title', TITLE_MAX);
    out.title = body.title as string | null;
  }
  if (has('target_type')) {
    if (!(TARGET_TYPES as readonly unknown[]).includes(body.target_type)) throw errors.invalidChoice(body.target_type, 'target_type');
    out.target_type = body.target_type as TargetType;
  }
  if (has('target_value')) {
    if (typeof body.target_value !== 'string') throw errors.notAString('target_value');
    out.target_value = body.target_value.trim();
  }
  if (has('frequency')) {
    if (!(FREQUENCIES as readonly unknown[]).includes(body.frequency)) throw errors.invalidChoice(body.frequency, 'frequency');
    out.frequency = body.frequency as Frequency;
  }
  if (has('interval')) out.interval = integer(body.interval, 'interval', 1);
  if (has('count')) out.count = body.count === null ? null : integer(body.count, 'count', 1);
  if (has('byweekday')) {
    const days = body.byweekday;
    if (days !== null && (!Array.isArray(days) || days.some((d) => !(WEEKDAYS as readonly unknown[]).includes(d)))) {
      throw errors.validation(`Expected a list of ${WEEKDAYS.join(', ')}.`, 'byweekday');
    }
    out.byweekday = days === null || days.length === 0 ? null : [...new Set(days as Weekday[])];
  }
  if (has('bysetpos')) {
    if (body.bysetpos !== null && ![1, 2, 3, 4, -1].includes(body.bysetpos as number)) throw errors.validation('Must be 1, 2, 3, 4 or -1.', 'bysetpos');
    out.bysetpos = body.bysetpos as number | null;
  }
  if (has('start_date')) out.start_date = date(body.start_date, 'start_date');
  if (has('until_date')) out.until_date = body.until_date === null ? null : date(body.until_date, 'until_date');
  for (const k of ['deleted', 'enabled'] as const) {
    if (!has(k)) continue;
    if (typeof body[k] !== 'boolean') throw errors.notABoolean(k);
    out[k] = body[k] as boolean;
  }
  // PostHog's Slack app integration (a channel through a connected workspace) is not here:
  // refused rather than kept and never delivered.
  if (body.integration_id !== undefined && body.integration_id !== null) {
    throw errors.validation(`Slack app integrations are not supported: ${SLACK_SUPPORTED}.`, 'integration_id');
  }
  checkTarget(out.target_type, out.target_value);

  if (out.dashboard === null && out.insight === null) throw errors.validation('Either dashboard or insight is required for an export.');
  if (out.insight !== null) {
    const i = targets.insight(out.insight);
    if (!i || i.deleted) throw errors.validation('This insight does not belong to your team.', 'insight');
  }
  const d = out.dashboard === null ? undefined : targets.dashboard(out.dashboard);
  if (out.dashboard !== null && (!d || d.deleted)) throw errors.validation('This dashboard does not belong to your team.', 'dashboard');
  if (has('dashboard_export_insights')) {
    const ids = body.dashboard_export_insights;
    if (!Array.isArray(ids) || !ids.every((v) => Number.isInteger(v))) throw errors.validation('Expected a list of insight ids.', 'dashboard_export_insights');
    if (ids.length > 0 && !d) throw errors.validation('Cannot set insights selection without a dashboard', 'dashboard_export_insights');
    const invalid = (ids as number[]).filter((id) => !d!.insights.includes(id));
    if (invalid.length > 0) throw errors.validation(`${invalid.length} invalid insight(s) selected`, 'dashboard_export_insights');
    out.dashboard_export_insights = [...new Set(ids as number[])];
  }
  return out;
}
