// The person properties a flag sees: stored, plus distinct_id, overlaid by the request,
// with missing $initial_* properties filled from their current values.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { personPropertiesForEvaluation } from '../../src/flags/index.js';
import { evaluateOne, personCondition } from './helpers.js';

const s = suite('person properties for evaluation');

s('request properties override stored ones, and distinct_id is always there', () => {
  const merged = personPropertiesForEvaluation({ plan: 'free', email: 'a@x.io' }, { plan: 'pro' }, 'user-9');
  assert.equal(merged, { plan: 'pro', email: 'a@x.io', distinct_id: 'user-9' });
});

s('missing $initial_ properties come from their current values; present ones stay', () => {
  const merged = personPropertiesForEvaluation({ $browser: 'Firefox', $initial_os: 'Linux' }, { utm_source: 'news', $os: 'Mac' }, 'u');
  assert.is(merged.$initial_browser, 'Firefox');
  assert.is(merged.$initial_utm_source, 'news');
  assert.is(merged.$initial_os, 'Linux');
  assert.not.ok('$initial_plan' in personPropertiesForEvaluation({ plan: 'x' }, null, 'u'));
});

s('works without stored properties or request properties', () => {
  assert.equal(personPropertiesForEvaluation(undefined, undefined, 'u'), { distinct_id: 'u' });
});

s('flags can target distinct_id through the merged properties', () => {
  const filters = personCondition({ key: 'distinct_id', type: 'person', operator: 'icontains', value: '@staff' });
  const person_properties = personPropertiesForEvaluation({}, {}, 'ann@staff');
  assert.ok(evaluateOne(filters, { distinct_id: 'ann@staff', person_properties }).enabled);
});

s.run();
