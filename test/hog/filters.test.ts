// Hog function filters: PostHog's expected bytecode for its own test filters, and what
// each property operator's bytecode decides when the VM runs it on filter globals.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileFilters } from '../../src/hog/index.js';
import type { ActionStep, Bytecode, FilterContext, HogFunctionFilters, PropertyFilter } from '../../src/hog/index.js';
import { execute } from '../../src/hog/host.js';
import { repoRoot } from './helpers.js';

interface Fixture {
  context: { testAccountFilters: PropertyFilter[]; actions: Record<string, ActionStep[]> };
  cases: [string, HogFunctionFilters, Bytecode][];
  errors: [string, HogFunctionFilters, string][];
}
const fixture = JSON.parse(readFileSync(join(repoRoot, 'test/hog/posthog/filters.json'), 'utf8')) as Fixture;
const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const ctx: FilterContext = {
  now: NOW,
  testAccountFilters: fixture.context.testAccountFilters,
  action: (id) => (fixture.context.actions[String(id)] ? { steps: fixture.context.actions[String(id)] } : undefined),
  siteUrl: 'https://hedgerow.example',
  projectId: 7,
};

function bytecode(filters: HogFunctionFilters, context: FilterContext = ctx): Bytecode {
  const result = compileFilters(filters, context);
  if (result.bytecode === null) throw new Error(`bytecode_error: ${(result as { bytecode_error: string }).bytecode_error}`);
  return result.bytecode;
}

function errorOf(filters: HogFunctionFilters, context: FilterContext = ctx): string {
  const result = compileFilters(filters, context);
  assert.is(result.bytecode, null);
  return (result as { bytecode_error: string }).bytecode_error;
}

const globals = (properties: Record<string, unknown>, person: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  event: '$pageview', properties, person: { id: 'p', properties: person }, elements_chain: '', ...extra,
});

async function matches(filters: HogFunctionFilters, g: Record<string, unknown>): Promise<boolean> {
  const report = await execute(bytecode(filters), g, { timeoutMs: 1000 });
  if (report.error) throw new Error(report.error.message);
  return report.result === true;
}

const prop = (operator: string, value: unknown, key = 'p', type = 'event'): HogFunctionFilters =>
  ({ properties: [{ key, value, operator, type }] });

const posthog = suite('hog filters: PostHog bytecode');

for (const [name, filters, expected] of fixture.cases) {
  posthog(name, () => assert.equal(bytecode(filters), expected));
}
for (const [name, filters, message] of fixture.errors) {
  posthog(name, () => assert.is(errorOf(filters), message));
}

posthog('one-member AND/OR are not wrapped; filters with neither events nor properties are true', () => {
  assert.equal(bytecode({ events: [{ id: '$pageview', type: 'events' }] }), ['_H', 1, 32, '$pageview', 32, 'event', 1, 1, 11]);
  assert.equal(bytecode({ events: [], actions: [], properties: [] }), ['_H', 1, 29]);
});

posthog('events of other sources are dropped: person updates filter on properties only', () => {
  assert.equal(bytecode({ source: 'person-updates', events: [{ id: '$pageview', type: 'events' }] }), ['_H', 1, 29]);
});

const operators = suite('hog filters: property operators on the VM');

operators('exact and is_not compare as the VM does (case-sensitive; numbers match numeric text)', async () => {
  assert.ok(await matches(prop('exact', 'Pro'), globals({ p: 'Pro' })));
  assert.not.ok(await matches(prop('exact', 'Pro'), globals({ p: 'pro' })));
  assert.ok(await matches(prop('exact', '6'), globals({ p: 6 })));
  assert.ok(await matches(prop('is_not', 'Pro'), globals({ p: 'x' })));
  assert.not.ok(await matches(prop('is_not', 'Pro'), globals({ p: 'Pro' })));
});

operators('several exact values: any may match, with type coercion; is_not excludes them all', async () => {
  const survey = prop('exact', ['1', '2', '3', '4', '5', '6']);
  assert.ok(await matches(survey, globals({ p: 6 })));
  assert.not.ok(await matches(survey, globals({ p: 7 })));
  const errors = prop('exact', ['true', true, 1]);
  for (const [v, want] of [[true, true], ['true', true], [1, true], [false, false], ['false', false], [0, false]] as const) {
    assert.is(await matches(errors, globals({ p: v })), want, `value ${String(v)}`);
  }
  assert.ok(await matches(prop('is_not', ['a', 'b']), globals({ p: 'c' })));
  assert.not.ok(await matches(prop('is_not', ['a', 'b']), globals({ p: 'b' })));
});

operators('is_set and is_not_set', async () => {
  assert.ok(await matches(prop('is_set', 'is_set'), globals({ p: 0 })));
  assert.not.ok(await matches(prop('is_set', 'is_set'), globals({})));
  assert.ok(await matches(prop('is_not_set', 'is_not_set'), globals({})));
});

operators('icontains / not_icontains, one value or several', async () => {
  assert.ok(await matches(prop('icontains', 'DOCS'), globals({ p: 'https://x/docs/a' })));
  assert.not.ok(await matches(prop('icontains', 'blog'), globals({ p: 'https://x/docs/a' })));
  assert.ok(await matches(prop('not_icontains', '@posthog.com', 'email', 'person'), globals({}, { email: 'a@b.com' })));
  assert.not.ok(await matches(prop('not_icontains', '@posthog.com', 'email', 'person'), globals({}, { email: 'a@PostHog.com' })));
  assert.ok(await matches(prop('icontains', ['zzz', 'Doc']), globals({ p: 'docs' })));
  assert.ok(await matches(prop('not_icontains', ['zzz', 'yyy']), globals({ p: 'docs' })));
  assert.ok(await matches(prop('icontains_multi', ['x', 'OC']), globals({ p: 'docs' })));
  // PostHog fans a list out per value and joins not_icontains_multi with OR: one absent needle is enough.
  assert.ok(await matches(prop('not_icontains_multi', ['x', 'OC']), globals({ p: 'docs' })));
  assert.not.ok(await matches(prop('not_icontains_multi', ['D', 'OC']), globals({ p: 'docs' })));
});

operators('regex and not_regex run through RE2; a missing property is not a match (not_regex: is)', async () => {
  assert.ok(await matches(prop('regex', '^ch'), globals({ p: 'chrome' })));
  assert.not.ok(await matches(prop('regex', '^ch'), globals({ p: 'firefox' })));
  assert.ok(await matches(prop('not_regex', '^ch'), globals({ p: 'firefox' })));
});

operators('gt, gte, lt, lte, between, not_between on numbers', async () => {
  assert.ok(await matches(prop('gt', 5), globals({ p: 6 })));
  assert.not.ok(await matches(prop('gt', 5), globals({ p: 5 })));
  assert.ok(await matches(prop('gte', 5), globals({ p: 5 })));
  assert.ok(await matches(prop('lt', 5), globals({ p: '4' })));
  assert.ok(await matches(prop('lte', 5), globals({ p: 5 })));
  assert.ok(await matches(prop('between', [1, 10]), globals({ p: 10 })));
  assert.not.ok(await matches(prop('between', [1, 10]), globals({ p: 11 })));
  assert.ok(await matches(prop('not_between', [1, 10]), globals({ p: 0 })));
});

operators('in / not_in take a list', async () => {
  assert.ok(await matches(prop('in', ['a', 'b']), globals({ p: 'b' })));
  assert.ok(await matches(prop('not_in', ['a', 'b']), globals({ p: 'c' })));
});

operators('semver operators compare versions part by part', async () => {
  assert.ok(await matches(prop('semver_gt', '1.9.0'), globals({ p: '1.10.0' })));
  assert.ok(await matches(prop('semver_eq', '1.2.3'), globals({ p: 'v1.2.3' })));
  assert.ok(await matches(prop('semver_lte', '2.0.0'), globals({ p: '2.0.0' })));
  assert.ok(await matches(prop('semver_tilde', '1.2.3'), globals({ p: '1.2.9' })));
  assert.not.ok(await matches(prop('semver_tilde', '1.2.3'), globals({ p: '1.3.0' })));
  assert.ok(await matches(prop('semver_caret', '0.2.3'), globals({ p: '0.2.5' })));
  assert.not.ok(await matches(prop('semver_caret', '0.2.3'), globals({ p: '0.3.0' })));
  assert.ok(await matches(prop('semver_wildcard', '1.*'), globals({ p: '1.99.0' })));
  assert.not.ok(await matches(prop('semver_wildcard', '1.*'), globals({ p: '2.0.0' })));
});

operators('date operators: absolute dates, and relative ones fixed at compile time', async () => {
  assert.ok(await matches(prop('is_date_before', '2024-01-01'), globals({ p: '2023-06-01' })));
  assert.ok(await matches(prop('is_date_after', '2024-01-01T00:00:00Z'), globals({ p: '2024-02-01T00:00:00Z' })));
  // -7d at NOW (2026-11-25 12:00 UTC) is 2026-11-18 12:00:00.
  const week = bytecode(prop('is_date_after', '-7d'));
  assert.ok(week.includes('2026-11-18 12:00:00'));
  assert.ok(await matches(prop('is_date_after', '-7d'), globals({ p: '2026-11-20T00:00:00Z' })));
  assert.not.ok(await matches(prop('is_date_after', '-7d'), globals({ p: '2026-11-01T00:00:00Z' })));
  const months = bytecode(prop('is_date_before', '-3m'), { ...ctx, timeZone: 'America/New_York' });
  assert.ok(months.includes('2026-08-25 07:00:00'), 'three calendar months back on the New York wall clock');
});

operators('person, group, event metadata and elements chain locations', async () => {
  assert.equal(bytecode(prop('exact', 'x', 'plan', 'person')).slice(2, 11), [32, 'x', 32, 'plan', 32, 'properties', 32, 'person', 1]);
  assert.equal(
    bytecode({ properties: [{ key: 'tier', value: 'x', operator: 'exact', type: 'group', group_type_index: 1 }] }).slice(4, 10),
    [32, 'tier', 32, 'properties', 32, 'group_1'],
  );
  assert.equal(bytecode(prop('exact', 'u1', 'distinct_id', 'event_metadata')), ['_H', 1, 32, 'u1', 32, 'distinct_id', 1, 1, 11]);
  assert.equal(bytecode(prop('icontains', 'a', '$elements_chain')).slice(4, 6), [32, 'elements_chain']);
});

operators('element filters: tag name, href, text', async () => {
  const chain = { elements_chain: 'a.link:href="/docs"nth-child="1";div', elements_chain_href: '/docs', elements_chain_texts: ['Read docs'] };
  assert.ok(await matches({ properties: [{ key: 'tag_name', value: 'a', operator: 'exact', type: 'element' }] }, globals({}, {}, chain)));
  assert.not.ok(await matches({ properties: [{ key: 'tag_name', value: 'span', operator: 'exact', type: 'element' }] }, globals({}, {}, chain)));
  assert.ok(await matches({ properties: [{ key: 'href', value: '/docs', operator: 'exact', type: 'element' }] }, globals({}, {}, chain)));
  assert.ok(await matches({ properties: [{ key: 'text', value: 'docs', operator: 'icontains', type: 'element' }] }, globals({}, {}, chain)));
});

operators('hogql filters are parsed as expressions', async () => {
  assert.ok(await matches({ properties: [{ type: 'hogql', key: "properties.p = 'x' and length(event) > 3" }] }, globals({ p: 'x' })));
});

operators('dotted keys are nested paths only on internal events whose properties nest', async () => {
  const activity = { events: [{ id: '$activity_log_entry_created', type: 'events' }], ...prop('icontains', 'cheese', 'detail.name') };
  assert.ok(await matches(activity, { event: '$activity_log_entry_created', properties: { detail: { name: 'cheese wheel' } } }));
  const flat = { events: [{ id: '$pageview', type: 'events' }], ...prop('exact', 'baz', 'foo.bar') };
  assert.ok(await matches(flat, { event: '$pageview', properties: { 'foo.bar': 'baz' } }));
  assert.not.ok(await matches(flat, { event: '$pageview', properties: { foo: { bar: 'baz' } } }));
});

const errors = suite('hog filters: bytecode_error');

errors('cohorts cannot be evaluated in real time', () => {
  assert.is(errorOf(prop('in', 3, 'id', 'cohort')),
    "Cohort membership can't be evaluated in real-time filters. Replace cohorts with equivalent inline person property " +
    'filters. Update your filters at: https://hedgerow.example/project/7/settings/project#internal-user-filtering');
});

errors('person-property cohorts in test account filters are inlined; others are refused with the reason', async () => {
  const cohorts: FilterContext['cohort'] = (id) => ({
    1: { name: 'Staff', is_static: false, filters: { properties: { type: 'AND', values: [{ type: 'person', key: 'email', operator: 'icontains', value: '@staff.io' }] } } },
    2: { name: 'Static', is_static: true, filters: null },
    3: { name: 'Behavioral', is_static: false, filters: { properties: { type: 'AND', values: [{ type: 'behavioral', key: '$pageview', value: 'performed_event' }] } } },
  } as Record<number, ReturnType<NonNullable<FilterContext['cohort']>>>)[id];
  const withCohort = (id: number, negation = false) =>
    ({ ...ctx, cohort: cohorts, testAccountFilters: [{ type: 'cohort', key: 'id', value: id, negation }] });
  const inlined = bytecode({ filter_test_accounts: true }, withCohort(1, true));
  const report = await execute(inlined, globals({}, { email: 'ann@staff.io' }));
  assert.is(report.result, false, 'a staff member is filtered out');
  assert.is((await execute(inlined, globals({}, { email: 'ann@else.io' }))).result, true);
  assert.ok(errorOf({ filter_test_accounts: true }, withCohort(2)).includes("cohort 'Static' (id=2) is a static cohort"));
  assert.ok(errorOf({ filter_test_accounts: true }, withCohort(3)).includes(
    "cohort 'Behavioral' (id=3) contains behavioral filters — only cohorts with exclusively person property filters"));
  assert.ok(errorOf({ filter_test_accounts: true }, withCohort(4)).startsWith(
    "Your internal/test user filters include cohorts that can't be used in real-time filters: cohort id=4 not found. "));
});

errors('operators PostHog has no filter expression for, bad values, unknown actions', () => {
  assert.is(errorOf(prop('starts_with', 'a')), 'PropertyOperator starts_with not implemented');
  assert.is(errorOf(prop('between', [5, 1])), 'between operator requires min value to be less than or equal to max value');
  assert.is(errorOf(prop('semver_caret', 'x.y')), "Caret operator requires a valid semver string (e.g., '1.2.3')");
  assert.is(errorOf({ actions: [{ id: 404, type: 'actions' }] }), 'Action matching query does not exist.');
  assert.is(errorOf({ properties: [{ type: 'hogql', key: 'mystery(1)' }] }), 'Filter compilation errors: Hog function `mystery` is not implemented');
});

errors('incomplete or unknown property filters match everything, as in PostHog', () => {
  assert.equal(bytecode({ properties: [{ value: 'x' }] }), ['_H', 1, 33, 1]);
  assert.equal(bytecode({ properties: [{ key: 'k', value: 'x', type: 'no-such-type' }] }), ['_H', 1, 33, 1]);
});

for (const s of [posthog, operators, errors]) s.run();
