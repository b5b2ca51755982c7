// Flag dependencies (type "flag", operator flag_evaluates_to): dependencies are evaluated
// first whatever the definition order; missing or cyclic ones fail closed.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileFlags, evaluateFlags } from '../../src/flags/index.js';
import type { FlagDefinition, PropertyFilterDefinition } from '../../src/flags/index.js';
import { NOW } from './conformance.js';
import { evaluate, flag } from './helpers.js';

const dependsOn = (key: string, value: boolean | string): PropertyFilterDefinition => ({
  key,
  type: 'flag',
  operator: 'flag_evaluates_to',
  value,
  dependency_chain: [key],
});

const gate = (key: string, ...properties: PropertyFilterDefinition[]): FlagDefinition =>
  flag(key, { groups: [{ properties, rollout_percentage: 100 }] });

const proOnly = gate('pro', { key: 'plan', type: 'person', value: 'pro' });

const s = suite('flag dependencies');

s('a dependency is evaluated before its dependent, whatever the order', () => {
  const flags = [gate('child', dependsOn('pro', true)), proOnly];
  const result = evaluate({ flags }, { person_properties: { plan: 'pro' } });
  assert.ok(result.get('child')!.enabled);
  assert.equal([...result.keys()], ['pro', 'child']);
});

s('true expects any enabled value, false a disabled one, a string that variant', () => {
  const variantFlag = flag('layout', {
    groups: [{ properties: [], rollout_percentage: 100, variant: 'b' }],
    multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
  });
  const flags = [
    variantFlag,
    gate('on', dependsOn('layout', true)),
    gate('off', dependsOn('layout', false)),
    gate('is-b', dependsOn('layout', 'b')),
    gate('is-a', dependsOn('layout', 'a')),
  ];
  const result = evaluate({ flags });
  assert.ok(result.get('on')!.enabled);
  assert.not.ok(result.get('off')!.enabled);
  assert.ok(result.get('is-b')!.enabled);
  assert.not.ok(result.get('is-a')!.enabled);
});

s('an inactive dependency counts as false', () => {
  const flags = [flag('old', { groups: [{ rollout_percentage: 100 }] }, { active: false }), gate('without-old', dependsOn('old', false))];
  const result = evaluate({ flags });
  assert.ok(result.get('without-old')!.enabled);
  assert.not.ok(result.has('old'));
});

s('a dependency may be named by flag id, as PostHog stores it', () => {
  const flags = [{ ...proOnly, id: 4242 }, gate('child', dependsOn('4242', true))];
  assert.ok(evaluate({ flags }, { person_properties: { plan: 'pro' } }).get('child')!.enabled);
});

s('a missing dependency fails closed without reporting an error', () => {
  const compiled = compileFlags({ flags: [gate('orphan', dependsOn('nowhere', true)), proOnly] });
  const result = evaluateFlags(compiled, { distinct_id: 'u', now: NOW, person_properties: { plan: 'pro' } });
  const orphan = result.flags.find((f) => f.key === 'orphan')!;
  assert.is(orphan.enabled, false);
  assert.equal(orphan.reason, { code: 'missing_dependency', condition_index: null, description: 'Flag cannot be evaluated due to missing dependency' });
  assert.is(orphan.failed, false);
  assert.is(result.errors_while_computing_flags, false);
});

s('a deleted dependency is missing, and so is everything above it', () => {
  const flags = [
    flag('gone', { groups: [{ rollout_percentage: 100 }] }, { deleted: true }),
    gate('middle', dependsOn('gone', true)),
    gate('top', dependsOn('middle', true)),
  ];
  const result = evaluate({ flags });
  assert.is(result.get('middle')!.reason.code, 'missing_dependency');
  assert.is(result.get('top')!.reason.code, 'missing_dependency');
});

s('a dependency cycle fails its flags closed and reports errors', () => {
  const flags = [gate('a', dependsOn('b', true)), gate('b', dependsOn('a', true)), gate('c', dependsOn('a', false)), proOnly];
  const compiled = compileFlags({ flags });
  const result = evaluateFlags(compiled, { distinct_id: 'u', now: NOW, person_properties: { plan: 'pro' } });
  for (const key of ['a', 'b', 'c']) assert.is(result.flags.find((f) => f.key === key)!.reason.code, 'missing_dependency', key);
  assert.ok(result.flags.find((f) => f.key === 'pro')!.enabled);
  assert.is(result.errors_while_computing_flags, true);
});

s('a failed dependency has no value, so nothing that depends on it matches', () => {
  const flags = [
    gate('broken', { key: 'id', type: 'cohort', value: 1 }),
    gate('needs-broken-off', dependsOn('broken', false)),
  ];
  const result = evaluate({ flags });
  assert.is(result.get('broken')!.failed, true);
  assert.not.ok(result.get('needs-broken-off')!.enabled);
});

s('flag_keys_to_evaluate evaluates the requested flags and their dependencies only', () => {
  const flags = [proOnly, gate('child', dependsOn('pro', true)), gate('other', { key: 'x', type: 'person', value: 1 })];
  const result = evaluate({ flags }, { person_properties: { plan: 'pro' }, flag_keys_to_evaluate: ['child', 'unknown'] });
  assert.equal([...result.keys()].sort(), ['child', 'pro']);
  assert.ok(result.get('child')!.enabled);
});

s('only flag_evaluates_to compares flag values', () => {
  const flags = [proOnly, gate('child', { key: 'pro', type: 'flag', operator: 'exact', value: true })];
  assert.not.ok(evaluate({ flags }, { person_properties: { plan: 'pro' } }).get('child')!.enabled);
});

s.run();
