// Subscription schedules: PostHog's recurrence rules evaluated in the project's time zone.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nextOccurrence, summary, type Rule } from '../../src/subscriptions/rrule.js';

const s = suite('subscriptions: schedules');
const rule = (r: Partial<Rule>): Rule => ({ frequency: 'daily', interval: 1, start_date: '2026-01-05T08:00:00Z', until_date: null, count: null, byweekday: null, bysetpos: null, ...r });
const next = (r: Rule, after: string, zone = 'UTC') => {
  const at = nextOccurrence(r, Date.parse(after), zone);
  return at === null ? null : new Date(at).toISOString();
};

s('daily: at the start\'s time, strictly after; every 3 days', () => {
  assert.is(next(rule({}), '2026-01-01T00:00:00Z'), '2026-01-05T08:00:00.000Z');
  assert.is(next(rule({}), '2026-01-05T08:00:00Z'), '2026-01-06T08:00:00.000Z');
  assert.is(next(rule({ interval: 3 }), '2026-01-06T00:00:00Z'), '2026-01-08T08:00:00.000Z');
});

s('weekly on Mondays at 9:00 in Paris: 9:00 local on both sides of daylight saving', () => {
  // 2026-01-05 is a Monday; 9:00 in Paris is 08:00Z in winter, 07:00Z in summer.
  const monday = rule({ frequency: 'weekly', byweekday: ['monday'] });
  assert.is(next(monday, '2026-01-05T09:00:00Z', 'Europe/Paris'), '2026-01-12T08:00:00.000Z');
  assert.is(next(monday, '2026-03-28T00:00:00Z', 'Europe/Paris'), '2026-03-30T07:00:00.000Z');
  assert.is(next(rule({ frequency: 'weekly', byweekday: ['wednesday', 'friday'] }), '2026-01-07T08:00:00Z'), '2026-01-09T08:00:00.000Z');
  assert.is(next(rule({ frequency: 'weekly', interval: 2, byweekday: ['monday'] }), '2026-01-05T08:00:00Z'), '2026-01-19T08:00:00.000Z');
  // Without weekdays: the start's weekday.
  assert.is(next(rule({ frequency: 'weekly' }), '2026-01-05T08:00:00Z'), '2026-01-12T08:00:00.000Z');
});

s('monthly: the start\'s day (months without it skipped), or the nth/last weekday', () => {
  assert.is(next(rule({ frequency: 'monthly', start_date: '2026-01-31T08:00:00Z' }), '2026-01-31T08:00:00Z'), '2026-03-31T08:00:00.000Z');
  assert.is(next(rule({ frequency: 'monthly', byweekday: ['monday'], bysetpos: 1 }), '2026-01-05T08:00:00Z'), '2026-02-02T08:00:00.000Z');
  assert.is(next(rule({ frequency: 'monthly', byweekday: ['friday'], bysetpos: -1 }), '2026-01-05T08:00:00Z'), '2026-01-30T08:00:00.000Z');
  assert.is(next(rule({ frequency: 'yearly', start_date: '2024-02-29T08:00:00Z' }), '2024-03-01T00:00:00Z'), '2028-02-29T08:00:00.000Z');
});

s('count and until end a schedule', () => {
  assert.is(next(rule({ count: 2 }), '2026-01-05T09:00:00Z'), '2026-01-06T08:00:00.000Z');
  assert.is(next(rule({ count: 2 }), '2026-01-06T09:00:00Z'), null);
  assert.is(next(rule({ until_date: '2026-01-07T00:00:00Z' }), '2026-01-06T09:00:00Z'), null);
});

s('summary as PostHog words it', () => {
  assert.is(summary(rule({ frequency: 'weekly' })), 'sent every week');
  assert.is(summary(rule({ frequency: 'monthly', interval: 2, byweekday: ['monday'], bysetpos: 1 })), 'sent every 2 months on the first Monday');
  assert.is(summary(rule({ frequency: 'monthly', byweekday: ['monday', 'friday'], bysetpos: -1 })), 'sent every month on the last day');
});

s.run();
