// Hand-made insights in PostHog's result shapes, one or more per query kind, for the
// renderer tests and the example images in docs/exports/ (write-examples.ts).
import type { InsightData } from '../../src/exports/index.js';

const DAY = 86_400_000;

function isoDays(start: string, n: number, step = DAY): string[] {
  const t0 = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => new Date(t0 + i * step).toISOString().slice(0, 10));
}

// PostHog's trend labels: "1-Jan-2024".
function postHogLabel(day: string): string {
  const d = new Date(`${day}T00:00:00Z`);
  const month = d.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' });
  return `${d.getUTCDate()}-${month}-${d.getUTCFullYear()}`;
}

// A smooth, repeatable daily pattern: weekly rhythm, slow growth, a fixed wobble.
function wave(n: number, base: number, growth: number, phase: number): number[] {
  return Array.from({ length: n }, (_, i) => {
    const weekday = (i + phase) % 7;
    const weekend = weekday >= 5 ? 0.62 : 1;
    return Math.round((base + growth * i) * weekend * (1 + 0.08 * Math.sin(i * 1.7 + phase)));
  });
}

function action(name: string, order = 0, custom: string | null = null) {
  return { id: name, type: 'events', order, name, custom_name: custom, math: 'total', math_property: null };
}

function trendItem(name: string, data: number[], days: string[], extra: Record<string, unknown> = {}, order = 0) {
  return {
    action: action(name, order), label: name, count: data.reduce((a, b) => a + b, 0), data,
    labels: days.map(postHogLabel), days, ...extra,
  };
}

const DAYS_30 = isoDays('2024-03-01', 30);

export const trendsByBrowser: InsightData = {
  name: 'Pageviews by browser',
  timezone: 'Europe/London',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '2024-03-01', date_to: '2024-03-30' },
      series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }],
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
      trendsFilter: { display: 'ActionsLineGraph' },
    },
  },
  result: [
    trendItem('$pageview', wave(30, 820, 9, 0), DAYS_30, { label: 'Chrome', breakdown_value: 'Chrome' }),
    trendItem('$pageview', wave(30, 410, 4, 2), DAYS_30, { label: 'Safari', breakdown_value: 'Safari' }),
    trendItem('$pageview', wave(30, 190, -1, 4), DAYS_30, { label: 'Firefox', breakdown_value: 'Firefox' }),
    trendItem('$pageview', wave(30, 120, 1, 5), DAYS_30, { label: 'Edge', breakdown_value: 'Edge' }),
    trendItem('$pageview', wave(30, 35, 0, 1), DAYS_30, { label: '$$_posthog_breakdown_other_$$', breakdown_value: '$$_posthog_breakdown_other_$$' }),
  ],
};

const WEEKS = isoDays('2024-01-07', 8, 7 * DAY);
const PREV_WEEKS = isoDays('2023-11-12', 8, 7 * DAY);

export const signupsCompared: InsightData = {
  name: 'Weekly sign-ups against the previous period',
  timezone: 'America/New_York',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery', interval: 'week', dateRange: { date_from: '-8w' },
      series: [{ kind: 'EventsNode', event: 'signed_up', name: 'signed_up', math: 'dau' }],
      compareFilter: { compare: true },
      trendsFilter: { display: 'ActionsBar' },
    },
  },
  result: [
    trendItem('signed_up', [212, 240, 251, 238, 280, 301, 296, 333], WEEKS, { compare: true, compare_label: 'current' }),
    trendItem('signed_up', [180, 176, 199, 205, 190, 221, 230, 228], PREV_WEEKS, { compare: true, compare_label: 'previous' }),
  ],
};

const HOURS = Array.from({ length: 24 }, (_, h) => `2024-06-03 ${String(h).padStart(2, '0')}:00:00`);

export const hourlyTwoSeries: InsightData = {
  name: 'Checkout activity today',
  timezone: 'Asia/Tokyo',
  query: {
    kind: 'TrendsQuery', interval: 'hour', dateRange: { date_from: 'dStart' },
    series: [{ kind: 'EventsNode', event: 'checkout_started' }, { kind: 'EventsNode', event: 'checkout_completed' }],
    trendsFilter: { display: 'ActionsAreaGraph' },
  },
  result: [
    trendItem('checkout_started', HOURS.map((_, h) => Math.round(40 + 60 * Math.sin(((h - 6) / 24) * Math.PI) ** 2)), HOURS),
    trendItem('checkout_completed', HOURS.map((_, h) => Math.round(25 + 38 * Math.sin(((h - 6) / 24) * Math.PI) ** 2)), HOURS, {}, 1),
  ].map((item) => ({ ...item, labels: item.days.map((d: string) => `3-Jun-2024 ${d.slice(11, 16)}`) })),
};

function totalItem(name: string, value: number, breakdown: string, order = 0) {
  return { action: action(name, order), label: breakdown, count: value, aggregated_value: value, data: null, breakdown_value: breakdown, days: DAYS_30 };
}

export const countriesPie: InsightData = {
  name: 'Visitors by country',
  timezone: 'UTC',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery', dateRange: { date_from: '-30d' }, series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
      breakdownFilter: { breakdown: '$geoip_country_name', breakdown_type: 'event' }, trendsFilter: { display: 'ActionsPie' },
    },
  },
  result: [
    totalItem('$pageview', 4120, 'United States'), totalItem('$pageview', 1830, 'Germany'), totalItem('$pageview', 1210, 'United Kingdom'),
    totalItem('$pageview', 990, 'France'), totalItem('$pageview', 640, 'India'), totalItem('$pageview', 310, 'Brazil'),
    totalItem('$pageview', 205, '$$_posthog_breakdown_null_$$'),
  ],
};

export const countriesBars: InsightData = {
  ...countriesPie,
  name: 'Visitors by country (bars)',
  query: { kind: 'InsightVizNode', source: { ...(countriesPie.query as { source: Record<string, unknown> }).source, trendsFilter: { display: 'ActionsBarValue' } } },
};

export const boldNumber: InsightData = {
  name: 'Paying customers',
  timezone: 'UTC',
  query: { kind: 'TrendsQuery', dateRange: { date_from: '-30d' }, series: [{ kind: 'EventsNode', event: 'subscription_paid', math: 'dau' }], compareFilter: { compare: true }, trendsFilter: { display: 'BoldNumber' } },
  result: [
    { action: action('subscription_paid'), label: 'subscription_paid', count: 1284, aggregated_value: 1284, data: null, compare: true, compare_label: 'current', days: DAYS_30 },
    { action: action('subscription_paid'), label: 'subscription_paid', count: 1122, aggregated_value: 1122, data: null, compare: true, compare_label: 'previous', days: DAYS_30 },
  ],
};

function step(order: number, name: string, count: number, extra: Record<string, unknown> = {}) {
  return {
    action_id: name, name, custom_name: null, order, count, type: 'events',
    average_conversion_time: order === 0 ? null : 3600 * order + 125, median_conversion_time: order === 0 ? null : 1800 * order, ...extra,
  };
}

export const signupFunnel: InsightData = {
  name: 'Sign-up funnel',
  timezone: 'Europe/Berlin',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'FunnelsQuery', dateRange: { date_from: '-30d' },
      series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signup_started' }, { kind: 'EventsNode', event: 'signed_up' }, { kind: 'EventsNode', event: 'first_project_created' }],
      funnelsFilter: { funnelWindowInterval: 14, funnelWindowIntervalUnit: 'day', funnelOrderType: 'ordered', funnelVizType: 'steps' },
    },
  },
  result: [step(0, '$pageview', 9830), step(1, 'signup_started', 2410), step(2, 'signed_up', 1502), step(3, 'first_project_created', 611)],
};

export const funnelByPlan: InsightData = {
  name: 'Upgrade funnel by plan',
  timezone: 'UTC',
  query: {
    kind: 'FunnelsQuery', dateRange: { date_from: '-14d' },
    series: [{ kind: 'EventsNode', event: 'pricing_viewed' }, { kind: 'EventsNode', event: 'checkout_started' }, { kind: 'EventsNode', event: 'upgraded' }],
    breakdownFilter: { breakdown: 'plan', breakdown_type: 'person' },
  },
  result: [
    [step(0, 'pricing_viewed', 900, { breakdown: ['free'], breakdown_value: ['free'] }), step(1, 'checkout_started', 300, { breakdown: ['free'], breakdown_value: ['free'] }), step(2, 'upgraded', 120, { breakdown: ['free'], breakdown_value: ['free'] })],
    [step(0, 'pricing_viewed', 400, { breakdown: ['team'], breakdown_value: ['team'] }), step(1, 'checkout_started', 210, { breakdown: ['team'], breakdown_value: ['team'] }), step(2, 'upgraded', 150, { breakdown: ['team'], breakdown_value: ['team'] })],
  ],
};

export const timeToConvert: InsightData = {
  name: 'Time to first project',
  timezone: 'UTC',
  query: { kind: 'FunnelsQuery', series: [], funnelsFilter: { funnelVizType: 'time_to_convert' } },
  result: { average_conversion_time: 5400, bins: [[0, 120], [1800, 340], [3600, 260], [5400, 150], [7200, 80], [9000, 31]] },
};

// Weekly cohorts that start on Sundays at midnight in New York, stored as UTC instants.
const COHORT_STARTS = ['2024-01-07T05:00:00Z', '2024-01-14T05:00:00Z', '2024-01-21T05:00:00Z', '2024-01-28T05:00:00Z', '2024-02-04T05:00:00Z', '2024-02-11T05:00:00Z', '2024-02-18T05:00:00Z', '2024-02-25T05:00:00Z'];
const COHORT_SIZES = [1240, 1310, 1185, 1402, 1377, 1290, 1455, 1501];

export const weeklyRetention: InsightData = {
  name: 'Weekly retention of new users',
  timezone: 'America/New_York',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'RetentionQuery', dateRange: { date_from: '-8w' },
      retentionFilter: {
        period: 'Week', totalIntervals: 8, retentionType: 'retention_first_time',
        targetEntity: { id: '$pageview', name: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', name: '$pageview', type: 'events' },
      },
    },
  },
  result: COHORT_STARTS.map((date, c) => {
    const periods = COHORT_STARTS.length - c;
    const size = COHORT_SIZES[c];
    return {
      date, label: `Week ${c}`,
      values: Array.from({ length: periods }, (_, p) => ({ label: `Week ${p}`, count: p === 0 ? size : Math.round(size * (0.18 + 0.34 * Math.exp(-p / 1.6)) * (1 + 0.03 * ((c + p) % 3))) })),
    };
  }),
};

const DAYS_14 = isoDays('2024-04-01', 14);

export const lifecycle: InsightData = {
  name: 'Lifecycle of active users',
  timezone: 'Europe/Paris',
  query: {
    kind: 'InsightVizNode',
    source: { kind: 'LifecycleQuery', interval: 'day', dateRange: { date_from: '-14d' }, series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }] },
  },
  result: [
    { status: 'new', data: wave(14, 140, 2, 0) },
    { status: 'returning', data: wave(14, 420, 3, 3) },
    { status: 'resurrecting', data: wave(14, 70, 0, 5) },
    { status: 'dormant', data: wave(14, 160, 1, 2).map((n) => -n) },
  ].map((s) => ({
    ...trendItem('$pageview', s.data, DAYS_14), label: `$pageview - ${s.status}`, status: s.status,
  })),
};

export const stickiness: InsightData = {
  name: 'How many days a week people use the editor',
  timezone: 'UTC',
  query: {
    kind: 'StickinessQuery', interval: 'day', dateRange: { date_from: '-7d' },
    series: [{ kind: 'EventsNode', event: 'editor_opened' }, { kind: 'EventsNode', event: 'file_saved' }],
  },
  result: [
    { action: action('editor_opened'), label: 'editor_opened', count: 1410, data: [520, 310, 205, 150, 110, 70, 45], labels: ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days'], days: [1, 2, 3, 4, 5, 6, 7] },
    { action: action('file_saved', 1), label: 'file_saved', count: 980, data: [420, 220, 140, 90, 60, 30, 20], labels: ['1 day', '2 days', '3 days', '4 days', '5 days', '6 days', '7 days'], days: [1, 2, 3, 4, 5, 6, 7] },
  ],
};

export const eventsTable: InsightData = {
  name: 'Recent purchases',
  timezone: 'Australia/Sydney',
  query: { kind: 'DataTableNode', source: { kind: 'EventsQuery', select: ['event', 'person', 'properties.amount', 'properties.$browser', 'timestamp'], orderBy: ['timestamp DESC'] } },
  columns: ['event', 'person', 'properties.amount', 'properties.$browser', 'timestamp'],
  types: ['String', 'Tuple', 'Float64', 'String', 'DateTime64(6, \'UTC\')'],
  result: [
    ['purchase', { distinct_id: 'ann@example.com', properties: { email: 'ann@example.com' } }, 49.9, 'Chrome', '2024-05-01T23:30:00Z'],
    ['purchase', { distinct_id: 'bo@example.com', properties: { email: 'bo@example.com' } }, 120, 'Safari', '2024-05-01T13:05:10Z'],
    ['purchase', { distinct_id: 'cy@example.com', properties: { email: 'cy@example.com' } }, 15.25, '=HYPERLINK("x")', '2024-04-30T08:00:00Z'],
    ...['dee', 'eli', 'fay', 'gus', 'hal', 'ivy', 'jo', 'kit', 'lou'].map((who, i) => [
      'purchase', { distinct_id: `${who}@example.com`, properties: { email: `${who}@example.com` } }, 10 + i * 7.5,
      ['Chrome', 'Firefox', 'Safari'][i % 3], new Date(Date.UTC(2024, 3, 29, 20 - i * 2, 15 * (i % 4))).toISOString().replace('.000', ''),
    ]),
  ],
};

// PostHog's cumulative line: the running total (the query runner sums `data` itself).
const cumulate = (values: number[]) => values.reduce<number[]>((out, v) => [...out, (out[out.length - 1] ?? 0) + v], []);

export const cumulativeSignups: InsightData = {
  name: 'Sign-ups this month, cumulative',
  timezone: 'Europe/Berlin',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '2024-03-01', date_to: '2024-03-30' },
      series: [{ kind: 'EventsNode', event: 'signed_up', name: 'signed_up' }, { kind: 'EventsNode', event: 'upgraded', name: 'upgraded' }],
      trendsFilter: { display: 'ActionsLineGraphCumulative' },
    },
  },
  result: [
    trendItem('signed_up', cumulate(wave(30, 60, 1, 0)), DAYS_30),
    trendItem('upgraded', cumulate(wave(30, 12, 0.3, 3)), DAYS_30, {}, 1),
  ],
};

export const unstackedBars: InsightData = {
  name: 'Weekly page views by browser (unstacked)',
  timezone: 'UTC',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery', interval: 'week', dateRange: { date_from: '-8w' }, series: [{ kind: 'EventsNode', event: '$pageview', name: '$pageview' }],
      breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' }, trendsFilter: { display: 'ActionsUnstackedBar' },
    },
  },
  result: [
    trendItem('$pageview', [5400, 5810, 6020, 5900, 6300, 6650, 6480, 7010], WEEKS, { label: 'Chrome', breakdown_value: 'Chrome' }),
    trendItem('$pageview', [2700, 2650, 2900, 3010, 2980, 3120, 3300, 3280], WEEKS, { label: 'Safari', breakdown_value: 'Safari' }),
    trendItem('$pageview', [1200, 1150, 1230, 1190, 1260, 1210, 1300, 1280], WEEKS, { label: 'Firefox', breakdown_value: 'Firefox' }),
  ],
};

export const countriesTable: InsightData = {
  ...countriesPie,
  name: 'Visitors by country (table)',
  query: { kind: 'InsightVizNode', source: { ...(countriesPie.query as { source: Record<string, unknown> }).source, trendsFilter: { display: 'ActionsTable' } } },
};

// As PostHog's WorldMap: broken down by the alpha-2 country code; Australia, Canada and
// Russia have no value, and one visitor group has no country at all.
export const countriesMap: InsightData = {
  name: 'Visitors by country (world map)',
  timezone: 'UTC',
  query: {
    kind: 'InsightVizNode',
    source: {
      kind: 'TrendsQuery', dateRange: { date_from: '-30d' }, series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }],
      breakdownFilter: { breakdown: '$geoip_country_code', breakdown_type: 'event' }, trendsFilter: { display: 'WorldMap' },
    },
  },
  result: [
    totalItem('$pageview', 4120, 'US'), totalItem('$pageview', 1830, 'DE'), totalItem('$pageview', 1210, 'GB'), totalItem('$pageview', 990, 'FR'),
    totalItem('$pageview', 640, 'IN'), totalItem('$pageview', 2060, 'BR'), totalItem('$pageview', 420, 'ZA'), totalItem('$pageview', 380, 'JP'),
    totalItem('$pageview', 205, '$$_posthog_breakdown_null_$$'),
  ],
};

export const funnelTrends: InsightData = {
  name: 'Sign-up conversion over time',
  timezone: 'UTC',
  query: {
    kind: 'FunnelsQuery', interval: 'day', dateRange: { date_from: '2024-03-01', date_to: '2024-03-30' },
    series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'signed_up' }], funnelsFilter: { funnelVizType: 'trends' },
  },
  result: [{ count: 30, data: wave(30, 24, 0.1, 2).map((v) => Math.min(100, v)), days: DAYS_30, labels: DAYS_30.map(postHogLabel) }],
};

export const everyKind: Record<string, InsightData> = {
  'trends-line': trendsByBrowser,
  'trends-bar-compare': signupsCompared,
  'trends-area-hourly': hourlyTwoSeries,
  'trends-pie': countriesPie,
  'trends-bar-value': countriesBars,
  'trends-number': boldNumber,
  'trends-cumulative': cumulativeSignups,
  'trends-bar-unstacked': unstackedBars,
  'trends-table': countriesTable,
  'trends-world-map': countriesMap,
  'funnel-trends': funnelTrends,
  funnel: signupFunnel,
  'funnel-breakdown': funnelByPlan,
  'funnel-time-to-convert': timeToConvert,
  retention: weeklyRetention,
  lifecycle,
  stickiness,
  'events-table': eventsTable,
};
