// Who gets bucketed, and how: group flags, holdouts, experience continuity, device
// bucketing, variant overrides, early exit and early access.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hash01 } from '../../src/flags/index.js';
import type { FlagDefinitions, FlagFiltersDefinition } from '../../src/flags/index.js';
import { evaluate, evaluateOne, flag } from './helpers.js';

const half: FlagFiltersDefinition = { groups: [{ properties: [], rollout_percentage: 50 }] };
const included = (key: string, id: string, pct = 50) => hash01(`${key}.`, id, '') <= pct / 100;

// Ids on either side of a 50% rollout of flag "f".
const ids = Array.from({ length: 40 }, (_, i) => `id-${i}`);
const inId = ids.find((id) => included('f', id))!;
const outId = ids.find((id) => !included('f', id))!;

const groups = suite('group flags');
const orgFlag = (filters: FlagFiltersDefinition): FlagDefinitions => ({
  flags: [flag('f', { aggregation_group_type_index: 1, ...filters })],
  group_type_mapping: { '0': 'project', '1': 'organization' },
});

groups('hash the group key, not the distinct_id', () => {
  const defs = orgFlag(half);
  assert.ok(evaluate(defs, { distinct_id: outId, groups: { organization: inId } }).get('f')!.enabled);
  assert.not.ok(evaluate(defs, { distinct_id: inId, groups: { organization: outId } }).get('f')!.enabled);
});

groups('without the group the flag is off with no_group_type', () => {
  const f = evaluate(orgFlag(half), { groups: { project: 'p1' } }).get('f')!;
  assert.is(f.enabled, false);
  assert.equal([f.reason.code, f.reason.condition_index], ['no_group_type', 0]);
  assert.is(evaluate(orgFlag(half), { groups: { organization: '' } }).get('f')!.reason.code, 'no_group_type');
});

groups('an unmapped group type index is as good as no group', () => {
  const defs: FlagDefinitions = { flags: [flag('f', { aggregation_group_type_index: 3, ...half })], group_type_mapping: {} };
  assert.is(evaluate(defs, { groups: { organization: 'o' } }).get('f')!.reason.code, 'no_group_type');
});

groups('group filters read that group\'s properties', () => {
  const defs = orgFlag({ groups: [{ properties: [{ key: 'tier', type: 'group', group_type_index: 1, value: 'gold' }] }] });
  const ctx = (tier: string) => ({ groups: { organization: 'o1' }, group_properties: { organization: { tier } } });
  assert.ok(evaluate(defs, ctx('gold')).get('f')!.enabled);
  assert.not.ok(evaluate(defs, ctx('silver')).get('f')!.enabled);
});

groups('a person condition and a group condition can share a flag', () => {
  const defs: FlagDefinitions = {
    flags: [
      flag('f', {
        groups: [
          { properties: [{ key: 'tier', type: 'group', group_type_index: 0, value: 'gold' }], aggregation_group_type_index: 0 },
          { properties: [{ key: 'plan', type: 'person', value: 'pro' }] },
        ],
      }),
    ],
    group_type_mapping: { '0': 'project' },
  };
  const byPerson = evaluate(defs, { person_properties: { plan: 'pro' } }).get('f')!;
  assert.equal([byPerson.enabled, byPerson.reason.condition_index], [true, 1]);
  const neither = evaluate(defs, { person_properties: { plan: 'free' } }).get('f')!;
  assert.is(neither.reason.code, 'no_condition_match');
  assert.match(neither.reason.description, /group conditions were not evaluated/);
});

groups.run();

const holdouts = suite('holdouts');

holdouts('a held-out person gets holdout-<id> before any condition', () => {
  const filters: FlagFiltersDefinition = { groups: [{ properties: [{ key: 'x', type: 'person', value: 'never' }] }], holdout: { id: 9, exclusion_percentage: 100 } };
  const f = evaluateOne(filters);
  assert.equal([f.enabled, f.variant, f.value], [true, 'holdout-9', 'holdout-9']);
  assert.equal([f.reason.code, f.reason.condition_index], ['holdout_condition_value', null]);
});

holdouts('membership hashes "holdout-" + identifier, with no flag key and no salt', () => {
  const member = ids.find((id) => hash01('holdout-', id, '') <= 0.3)!;
  const outsider = ids.find((id) => hash01('holdout-', id, '') > 0.3)!;
  const filters: FlagFiltersDefinition = { groups: [{ properties: [] }], holdout: { id: 2, exclusion_percentage: 30 }, payloads: { 'holdout-2': '{"held":true}' } };
  const held = evaluateOne(filters, { distinct_id: member });
  assert.equal([held.variant, held.payload], ['holdout-2', '{"held":true}']);
  assert.equal([evaluateOne(filters, { distinct_id: outsider }).value, evaluateOne(filters, { distinct_id: outsider }).reason.code], [true, 'condition_match']);
});

holdouts.run();

const continuity = suite('experience continuity');

const eec = (filters: FlagFiltersDefinition): FlagDefinitions => ({ flags: [flag('f', filters, { ensure_experience_continuity: true })] });

continuity('a stored hash key wins, then $anon_distinct_id, then distinct_id', () => {
  const defs = eec(half);
  const enabled = (ctx: object) => evaluate(defs, { distinct_id: outId, ...ctx }).get('f')!.enabled;
  assert.not.ok(enabled({}));
  assert.ok(enabled({ anon_distinct_id: inId }));
  assert.ok(enabled({ hash_key_overrides: { f: inId }, anon_distinct_id: outId }));
  assert.not.ok(enabled({ hash_key_overrides: { other: inId } }));
});

continuity('flags without continuity ignore $anon_distinct_id', () => {
  assert.not.ok(evaluate({ flags: [flag('f', half)] }, { distinct_id: outId, anon_distinct_id: inId }).get('f')!.enabled);
});

continuity('when stored hash keys could not be read, continuity flags fail and errors are reported', () => {
  const defs: FlagDefinitions = { flags: [...eec(half).flags, flag('plain', { groups: [{ rollout_percentage: 100 }] })] };
  const result = evaluate(defs, {}, { hash_key_overrides_failed: true });
  assert.equal([result.get('f')!.failed, result.get('f')!.reason.code], [true, 'hash_key_override_error']);
  assert.ok(result.get('plain')!.enabled);
});

continuity.run();

const device = suite('device bucketing');

const byDevice = (filters: FlagFiltersDefinition): FlagDefinitions => ({ flags: [flag('f', filters, { bucketing_identifier: 'device_id' })] });

device('person conditions hash $device_id', () => {
  const defs = byDevice(half);
  assert.ok(evaluate(defs, { distinct_id: outId, device_id: inId }).get('f')!.enabled);
  assert.not.ok(evaluate(defs, { distinct_id: inId, device_id: outId }).get('f')!.enabled);
});

device('without a device the condition is out of rollout bound', () => {
  const f = evaluate(byDevice(half), { distinct_id: inId }).get('f')!;
  assert.equal([f.enabled, f.reason.code, f.reason.condition_index], [false, 'out_of_rollout_bound', 0]);
});

device.run();

const conditions = suite('conditions and variants');

conditions('the first matching condition wins and reports its index', () => {
  const filters: FlagFiltersDefinition = {
    groups: [
      { properties: [{ key: 'plan', type: 'person', value: 'pro' }], variant: 'b' },
      { properties: [], rollout_percentage: 100, variant: 'a' },
    ],
    multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'b', rollout_percentage: 50 }] },
    payloads: { a: '"A"', b: '"B"' },
  };
  const pro = evaluateOne(filters, { person_properties: { plan: 'pro' } });
  assert.equal([pro.variant, pro.payload, pro.reason.condition_index, pro.reason.description], ['b', '"B"', 0, 'Matched condition set 1']);
  const free = evaluateOne(filters, { person_properties: { plan: 'free' } });
  assert.equal([free.variant, free.payload, free.reason.condition_index], ['a', '"A"', 1]);
});

conditions('a hash past the last boundary leaves the flag on without a variant', () => {
  const filters: FlagFiltersDefinition = { groups: [{ properties: [] }], multivariate: { variants: [{ key: 'only', rollout_percentage: 0 }] }, payloads: { true: '1' } };
  const f = evaluateOne(filters);
  assert.equal([f.enabled, f.variant, f.value, f.payload], [true, null, true, '1']);
});

conditions('early_exit stops at the first rollout miss', () => {
  const filters = (early_exit: boolean): FlagFiltersDefinition => ({
    groups: [{ properties: [], rollout_percentage: 50 }, { properties: [], rollout_percentage: 100 }],
    early_exit,
  });
  assert.ok(evaluateOne(filters(false), { distinct_id: outId }).enabled);
  const stopped = evaluateOne(filters(true), { distinct_id: outId });
  assert.equal([stopped.enabled, stopped.reason.code, stopped.reason.condition_index], [false, 'out_of_rollout_bound', 0]);
});

conditions('a flag without conditions is off', () => {
  const f = evaluateOne({ groups: [] });
  assert.equal([f.enabled, f.reason.code, f.reason.condition_index], [false, 'no_group_type', null]);
});

conditions('inactive and deleted flags are omitted', () => {
  const result = evaluate({
    flags: [flag('off', half, { active: false }), flag('gone', half, { deleted: true }), flag('on', { groups: [{}] })],
  });
  assert.equal([...result.keys()], ['on']);
});

conditions.run();

const early = suite('early access');

early('feature_enrollment decides from $feature_enrollment/<key> when the person has it', () => {
  const filters: FlagFiltersDefinition = { groups: [{ properties: [], rollout_percentage: 0 }], feature_enrollment: true, payloads: { true: '"p"' } };
  const enrolled = evaluateOne(filters, { person_properties: { '$feature_enrollment/f': true } });
  assert.equal([enrolled.enabled, enrolled.reason.code, enrolled.reason.condition_index, enrolled.payload], [true, 'super_condition_value', 0, '"p"']);
  assert.ok(evaluateOne(filters, { person_properties: { '$feature_enrollment/f': 'true' } }).enabled);
  assert.is(evaluateOne(filters, { person_properties: { '$feature_enrollment/f': false } }).reason.code, 'super_condition_value');
  const unknown = evaluateOne(filters, { person_properties: {} });
  assert.equal([unknown.enabled, unknown.reason.code], [false, 'out_of_rollout_bound']);
});

early('legacy super_groups gate only when the person has one of their properties', () => {
  const filters: FlagFiltersDefinition = {
    groups: [{ properties: [], rollout_percentage: 100 }],
    super_groups: [{ properties: [{ key: '$feature_enrollment/f', type: 'person', operator: 'exact', value: ['true'] }], rollout_percentage: 100 }],
  };
  assert.equal(evaluateOne(filters, { person_properties: { '$feature_enrollment/f': false } }).reason.code, 'super_condition_value');
  assert.not.ok(evaluateOne(filters, { person_properties: { '$feature_enrollment/f': false } }).enabled);
  assert.ok(evaluateOne(filters, { person_properties: { '$feature_enrollment/f': true } }).enabled);
  assert.is(evaluateOne(filters, { person_properties: {} }).reason.code, 'condition_match');
});

early.run();
