// Cohort targeting: dynamic cohorts are AND/OR trees evaluated on person properties (with
// negation and nested cohorts); static cohorts come from the caller's membership; broken
// cohorts fail the flag.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlagDefinitions, PropertyGroupDefinition } from '../../src/flags/index.js';
import { evaluate, flag } from './helpers.js';

const group = (type: string, ...values: PropertyGroupDefinition['values']): PropertyGroupDefinition => ({ type, values });
const person = (key: string, operator: string, value: unknown, negation = false) => ({ key, type: 'person', operator, value, negation });
const cohortRef = (id: number, negation = false, operator: string | undefined = undefined) => ({ key: 'id', type: 'cohort', value: id, negation, operator });

function targeting(cohorts: FlagDefinitions['cohorts'], id: number, operator = 'in'): FlagDefinitions {
  return {
    flags: [flag('f', { groups: [{ properties: [{ key: 'id', type: 'cohort', operator, value: id }], rollout_percentage: 100 }] })],
    cohorts,
  };
}

const s = suite('cohorts');

s('a person in a dynamic cohort matches; one outside does not', () => {
  const defs = targeting({ '1': group('OR', group('AND', person('email', 'icontains', '@example.com'), person('age', 'gte', 18))) }, 1);
  assert.ok(evaluate(defs, { person_properties: { email: 'ada@EXAMPLE.com', age: 30 } }).get('f')!.enabled);
  assert.not.ok(evaluate(defs, { person_properties: { email: 'ada@example.com', age: 12 } }).get('f')!.enabled);
});

s('OR groups need one match, AND groups all, nested to any depth', () => {
  const tree = group(
    'OR',
    group('AND', person('plan', 'exact', 'pro'), person('country', 'exact', 'NZ')),
    group('OR', person('beta', 'exact', true), group('AND', person('seats', 'gt', 100), person('region', 'exact', 'EU'))),
  );
  const defs = targeting({ '2': tree }, 2);
  const enabled = (p: Record<string, unknown>) => evaluate(defs, { person_properties: p }).get('f')!.enabled;
  assert.ok(enabled({ plan: 'pro', country: 'nz' }));
  assert.not.ok(enabled({ plan: 'pro', country: 'AU' }));
  assert.ok(enabled({ beta: 'true' }));
  assert.ok(enabled({ seats: 500, region: 'eu' }));
  assert.not.ok(enabled({ seats: 500 }));
});

s('negation inverts a property filter', () => {
  const defs = targeting({ '3': group('AND', group('AND', person('email', 'icontains', '@spam.com', true))) }, 3);
  assert.ok(evaluate(defs, { person_properties: { email: 'a@good.com' } }).get('f')!.enabled);
  assert.not.ok(evaluate(defs, { person_properties: { email: 'a@spam.com' } }).get('f')!.enabled);
});

s('not_in matches people outside the cohort', () => {
  const defs = targeting({ '4': group('AND', group('AND', person('plan', 'exact', 'free'))) }, 4, 'not_in');
  assert.ok(evaluate(defs, { person_properties: { plan: 'pro' } }).get('f')!.enabled);
  assert.not.ok(evaluate(defs, { person_properties: { plan: 'free' } }).get('f')!.enabled);
});

s('cohorts may contain cohorts, negated or not', () => {
  const cohorts = {
    '10': group('AND', group('AND', person('plan', 'exact', 'pro'))),
    '11': group('AND', group('AND', cohortRef(10), person('country', 'exact', 'NZ'))),
    '12': group('AND', group('AND', cohortRef(10, true))),
  };
  const nested = targeting(cohorts, 11);
  assert.ok(evaluate(nested, { person_properties: { plan: 'pro', country: 'NZ' } }).get('f')!.enabled);
  assert.not.ok(evaluate(nested, { person_properties: { plan: 'free', country: 'NZ' } }).get('f')!.enabled);
  const negated = targeting(cohorts, 12);
  assert.ok(evaluate(negated, { person_properties: { plan: 'free' } }).get('f')!.enabled);
  assert.not.ok(evaluate(negated, { person_properties: { plan: 'pro' } }).get('f')!.enabled);
});

s('inside an OR group a nested cohort ignores negation, as PostHog does', () => {
  const cohorts = {
    '20': group('AND', group('AND', person('plan', 'exact', 'pro'))),
    '21': group('OR', group('OR', cohortRef(20, true))),
  };
  assert.ok(evaluate(targeting(cohorts, 21), { person_properties: { plan: 'pro' } }).get('f')!.enabled);
});

s('static cohorts are the caller-supplied membership', () => {
  const defs = targeting({ '30': { is_static: true } }, 30);
  assert.ok(evaluate(defs, { static_cohorts: new Set([30]) }).get('f')!.enabled);
  assert.not.ok(evaluate(defs, { static_cohorts: new Set([31]) }).get('f')!.enabled);
  assert.not.ok(evaluate(defs).get('f')!.enabled);
  const membership = { has: (id: number) => id % 2 === 0 };
  assert.ok(evaluate(defs, { static_cohorts: membership }).get('f')!.enabled);
});

s('a dynamic cohort can include a static one', () => {
  const cohorts = { '40': { is_static: true }, '41': group('OR', group('OR', cohortRef(40), person('vip', 'exact', true))) };
  const defs = targeting(cohorts, 41);
  assert.ok(evaluate(defs, { static_cohorts: new Set([40]) }).get('f')!.enabled);
  assert.ok(evaluate(defs, { person_properties: { vip: true } }).get('f')!.enabled);
  assert.not.ok(evaluate(defs).get('f')!.enabled);
});

s('cohort ids may be numeric strings, and cohort definitions may carry is_static false', () => {
  const defs: FlagDefinitions = {
    flags: [flag('f', { groups: [{ properties: [{ key: 'id', type: 'cohort', value: '50' }] }] })],
    cohorts: { '50': { is_static: false, properties: group('AND', group('AND', person('plan', 'exact', 'pro'))) } },
  };
  assert.ok(evaluate(defs, { person_properties: { plan: 'pro' } }).get('f')!.enabled);
});

s('a missing cohort fails the flag and reports errors', () => {
  const result = evaluate(targeting({}, 99));
  const f = result.get('f')!;
  assert.is(f.failed, true);
  assert.is(f.enabled, false);
  assert.is(f.reason.code, 'dependency_not_found_cohort');
});

s('a cohort depending on a missing or cyclic cohort fails the flag', () => {
  const missing = targeting({ '60': group('AND', group('AND', cohortRef(61))) }, 60);
  assert.is(evaluate(missing).get('f')!.reason.code, 'dependency_not_found_cohort');
  const cyclic = targeting({ '70': group('AND', group('AND', cohortRef(71))), '71': group('AND', group('AND', cohortRef(70))) }, 70);
  assert.is(evaluate(cyclic).get('f')!.reason.code, 'dependency_cycle_cohort');
});

s('cohort filters run after the other filters, so a failed property spares the error', () => {
  const defs: FlagDefinitions = {
    flags: [
      flag('f', {
        groups: [{ properties: [{ key: 'id', type: 'cohort', value: 99 }, { key: 'plan', type: 'person', value: 'pro' }] }],
      }),
    ],
  };
  const f = evaluate(defs, { person_properties: { plan: 'free' } }).get('f')!;
  assert.is(f.failed, false);
  assert.is(f.reason.code, 'no_condition_match');
});

s.run();
