// Validation of flag filters for the management API.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { validateFlagFilters } from '../../src/flags/index.js';
import { readConformance } from './conformance.js';

const s = suite('flag filter validation');

const errorsOf = (filters: unknown, mapping?: Record<string, string>) => {
  const result = validateFlagFilters(filters, mapping);
  return result.valid ? [] : result.errors.map((e) => e.path);
};

s('accepts the flags of the conformance corpora, except an override the evaluator must merely tolerate', () => {
  const corpus = readConformance<{ cases: { id: string; definitions: { flags: { filters: unknown }[] } }[] }>('flag-rules-v2/corpus/v1_evaluation.json');
  for (const c of corpus.cases) {
    const expected = c.id === 'v1.multivariate.invalid_variant_override_uses_hash' ? ['/groups/0/variant'] : [];
    for (const f of c.definitions.flags) assert.equal(errorsOf(f.filters), expected, c.id);
  }
  const consistency = readConformance<{ flags: { filters: unknown }[] }>('flag-consistency-1000.json');
  for (const f of consistency.flags) assert.equal(errorsOf(f.filters), []);
});

s('accepts an empty filter set and every known operator', () => {
  assert.ok(validateFlagFilters({}).valid);
  for (const operator of ['exact', 'is_not', 'icontains', 'regex', 'gt', 'is_set', 'is_date_before', 'semver_caret', null]) {
    const filters = { groups: [{ properties: [{ key: 'k', type: 'person', operator, value: 'v' }] }] };
    assert.ok(validateFlagFilters(filters).valid, String(operator));
  }
});

s('rejects unknown operators and property types', () => {
  assert.ok(errorsOf({ groups: [{ properties: [{ key: 'k', type: 'person', operator: 'sounds_like', value: 'v' }] }] }).length > 0);
  assert.ok(errorsOf({ groups: [{ properties: [{ key: 'k', type: 'event', value: 'v' }] }] }).length > 0);
  assert.ok(errorsOf({ groups: [{ properties: [{ key: 'x', type: 'flag', operator: 'exact', value: true }] }] }).length > 0);
  assert.ok(errorsOf({ groups: [{ properties: [{ key: 'id', type: 'cohort', operator: 'exact', value: 1 }] }] }).length > 0);
});

s('rollout percentages lie between 0 and 100', () => {
  assert.ok(errorsOf({ groups: [{ rollout_percentage: 101 }] }).length > 0);
  assert.ok(errorsOf({ groups: [{ rollout_percentage: -1 }] }).length > 0);
  assert.equal(errorsOf({ groups: [{ rollout_percentage: null }] }), []);
});

s('variant percentages must sum to 100 and keys be unique', () => {
  const variants = (...pcts: number[]) => ({ multivariate: { variants: pcts.map((p, i) => ({ key: `v${i}`, rollout_percentage: p })) } });
  assert.equal(errorsOf(variants(50, 50)), []);
  assert.equal(errorsOf(variants(33.33, 33.33, 33.34)), []);
  assert.equal(errorsOf(variants(50, 40)), ['/multivariate/variants']);
  assert.equal(
    errorsOf({ multivariate: { variants: [{ key: 'a', rollout_percentage: 50 }, { key: 'a', rollout_percentage: 50 }] } }),
    ['/multivariate/variants/1/key'],
  );
});

s('a variant override must name a declared variant', () => {
  const filters = { groups: [{ variant: 'c' }], multivariate: { variants: [{ key: 'a', rollout_percentage: 100 }] } };
  assert.equal(errorsOf(filters), ['/groups/0/variant']);
});

s('group type indexes are integers 0 to 4, and exist when a mapping is given', () => {
  assert.ok(errorsOf({ aggregation_group_type_index: 5 }).length > 0);
  assert.ok(errorsOf({ aggregation_group_type_index: 1.5 }).length > 0);
  assert.ok(errorsOf({ groups: [{ properties: [{ key: 'k', type: 'group', value: 'v' }] }] }).length > 0, 'group filters need an index');
  assert.equal(errorsOf({ aggregation_group_type_index: 1 }, { '0': 'project' }), ['/aggregation_group_type_index']);
  assert.equal(
    errorsOf({ groups: [{ properties: [{ key: 'k', type: 'group', group_type_index: 2, value: 'v' }] }] }, { '0': 'project' }),
    ['/groups/0/properties/0/group_type_index'],
  );
  assert.equal(errorsOf({ aggregation_group_type_index: 0 }, { '0': 'project' }), []);
});

s('holdouts need an integer id and a percentage', () => {
  assert.equal(errorsOf({ holdout: { id: 3, exclusion_percentage: 10 } }), []);
  assert.ok(errorsOf({ holdout: { id: 'x', exclusion_percentage: 10 } }).length > 0);
  assert.ok(errorsOf({ holdout: { id: 3, exclusion_percentage: 120 } }).length > 0);
});

s.run();
