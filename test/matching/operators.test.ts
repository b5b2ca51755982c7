// Property operators with PostHog's server semantics. `undefined` is an absent property.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluateOne, matches, personCondition } from '../flags/helpers.js';

const exact = suite('operator exact / is_not');

exact('compares strings case-insensitively', () => {
  assert.ok(matches('exact', 'Value', 'value'));
  assert.ok(matches('exact', 'value', 'VALUE'));
  assert.not.ok(matches('exact', 'value', 'value2'));
  assert.not.ok(matches('exact', 'value', ''));
  assert.not.ok(matches('exact', 'value', null));
});

exact('a list matches any of its values', () => {
  const list = ['US', 'CA', 'Uk'];
  for (const v of ['us', 'Us', 'ca', 'UK']) assert.ok(matches('exact', list, v), v);
  assert.not.ok(matches('exact', list, 'de'));
  assert.not.ok(matches('exact', [], 'us'));
});

exact('numbers and numeric strings are the same text', () => {
  assert.ok(matches('exact', 5, '5'));
  assert.ok(matches('exact', '5', 5));
  assert.not.ok(matches('exact', 5, '5.0'));
});

exact('boolean-ish values compare as booleans', () => {
  assert.ok(matches('exact', true, 'true'));
  assert.ok(matches('exact', 'True', true));
  assert.ok(matches('exact', ['true'], true));
  assert.ok(matches('exact', false, 'False'));
  assert.not.ok(matches('exact', true, 'false'));
  // Anything that is not "true" reads as false.
  assert.ok(matches('exact', false, 'no'));
});

exact('is_not is the complement, and matches an absent property', () => {
  assert.ok(matches('is_not', 'value', 'value2'));
  assert.ok(matches('is_not', 'value', ''));
  assert.ok(matches('is_not', 'value', null));
  assert.not.ok(matches('is_not', ['value1', 'value2'], 'VALUE2'));
  assert.ok(matches('is_not', 'value', undefined));
  assert.not.ok(matches('exact', 'value', undefined));
});

exact('the operator defaults to exact', () => {
  assert.ok(matches(null as unknown as string, 'a', 'A'));
});

exact('a filter without a value matches nothing', () => {
  assert.not.ok(matches('exact', null, 'null'));
  assert.not.ok(matches('is_not', undefined, 'x'));
});

exact.run();

const contains = suite('operator icontains / not_icontains and friends');

contains('icontains is a case-insensitive substring test on the text', () => {
  for (const v of ['value', 'value2', 'vaLue4', '343tfvalue5']) assert.ok(matches('icontains', 'valUe', v), v);
  assert.not.ok(matches('icontains', 'valUe', 'Alakazam'));
  assert.not.ok(matches('icontains', 'valUe', 123));
  assert.ok(matches('icontains', '3', 323));
  assert.not.ok(matches('icontains', '3', 'three'));
  assert.not.ok(matches('icontains', 'x', undefined));
});

contains('case folding is ASCII only, as in PostHog', () => {
  assert.ok(matches('icontains', 'ÉCOLE', 'une École'.toUpperCase()));
  assert.ok(matches('icontains', 'École', 'ÉCOLE'.replace('COLE', 'cole')));
  assert.not.ok(matches('icontains', 'École', 'école'));
});

contains('not_icontains is the complement and matches an absent property', () => {
  assert.ok(matches('not_icontains', 'foo', 'bar'));
  assert.not.ok(matches('not_icontains', 'foo', 'FOOD'));
  assert.ok(matches('not_icontains', 'foo', undefined));
});

contains('icontains_multi, starts_with and ends_with', () => {
  assert.ok(matches('icontains_multi', ['abc', 'XYZ'], '__xyz__'));
  assert.not.ok(matches('icontains_multi', ['abc', 'xyz'], 'none'));
  assert.ok(matches('not_icontains_multi', ['abc'], undefined));
  assert.ok(matches('starts_with', 'Val', 'value'));
  assert.not.ok(matches('starts_with', 'val', 'a value'));
  assert.ok(matches('ends_with', 'LUE', 'value'));
  assert.ok(matches('not_ends_with', 'x', 'value'));
  assert.ok(matches('not_starts_with', 'x', undefined));
});

contains.run();

const regex = suite('operator regex / not_regex');

regex('finds the pattern anywhere in the text', () => {
  assert.ok(matches('regex', '^\\d+$', '12345'));
  assert.ok(matches('regex', 'a.c', 'xxabcxx'));
  assert.not.ok(matches('regex', '^\\d+$', '12a45'));
  assert.ok(matches('regex', '^5$', 5));
  assert.ok(matches('not_regex', '^\\d+$', 'abc'));
  assert.not.ok(matches('not_regex', 'b', 'abc'));
});

regex('is case-sensitive unless the pattern says otherwise', () => {
  assert.not.ok(matches('regex', 'ABC', 'abc'));
  assert.ok(matches('regex', '(?i)ABC', 'abc'));
});

regex('an absent property matches only not_regex', () => {
  assert.not.ok(matches('regex', '.*', undefined));
  assert.ok(matches('not_regex', 'x', undefined));
});

regex('an invalid pattern matches nothing, for both operators', () => {
  for (const bad of ['(', '[a-', '(?<=x)y', '(a)\\1']) {
    assert.not.ok(matches('regex', bad, 'anything'), bad);
    assert.not.ok(matches('not_regex', bad, 'anything'), bad);
  }
  assert.ok(matches('not_regex', '(', undefined));
});

regex('catastrophic backtracking patterns run in linear time', () => {
  // A backtracking engine would not finish these in the file's timeout (test/run.ts); how
  // long the linear one takes is measured by bench/latencies.js (regex).
  const input = 'a'.repeat(100_000) + 'b';
  assert.not.ok(matches('regex', '(a+)+$', input.slice(0, -1) + '!'));
  assert.ok(matches('regex', '(a+)+b$', input));
  assert.not.ok(matches('regex', '^(a|aa)+$', input));
});

regex.run();

const numeric = suite('operator gt / gte / lt / lte / between');

numeric('compares numbers', () => {
  assert.ok(matches('gt', 5, 6));
  assert.not.ok(matches('gt', 5, 5));
  assert.ok(matches('gte', 5, 5));
  assert.ok(matches('lt', 5, 4.5));
  assert.ok(matches('lte', 5, 5));
  assert.not.ok(matches('lte', 5, 5.0001));
});

numeric('reads numeric strings on either side', () => {
  assert.ok(matches('gt', '10', '11'));
  assert.ok(matches('lt', '1e3', 999));
  assert.ok(matches('gte', '-2.5', '-2.5'));
});

numeric('anything not numeric never matches', () => {
  assert.not.ok(matches('gt', 5, 'abc'));
  assert.not.ok(matches('lt', 5, 'abc'));
  assert.not.ok(matches('gt', 'abc', 6));
  assert.not.ok(matches('gt', 5, true));
  assert.not.ok(matches('lt', 5, null));
  assert.not.ok(matches('gt', 5, ' 6'));
  assert.not.ok(matches('lt', 5, undefined));
});

numeric('between is inclusive and not_between its complement', () => {
  assert.ok(matches('between', [1, 10], 1));
  assert.ok(matches('between', [1, 10], '10'));
  assert.not.ok(matches('between', [1, 10], 11));
  assert.ok(matches('not_between', [1, 10], 11));
  assert.ok(matches('not_between', [1, 10], undefined));
  assert.not.ok(matches('between', [10, 1], 5));
  assert.not.ok(matches('not_between', [1, 10], 'NaN'));
});

numeric.run();

const set = suite('operator is_set / is_not_set');

set('a property is set when present, even as null', () => {
  assert.ok(matches('is_set', 'is_set', 'x'));
  assert.ok(matches('is_set', null, null));
  assert.ok(matches('is_set', undefined, ''));
  assert.not.ok(matches('is_set', 'is_set', undefined));
  assert.ok(matches('is_not_set', 'is_not_set', undefined));
  assert.not.ok(matches('is_not_set', 'is_not_set', null));
});

set.run();

const flags = suite('operators inside flag conditions');

flags('a condition needs every filter; absent properties fail all but negative operators', () => {
  const filters = personCondition(
    { key: 'plan', type: 'person', operator: 'exact', value: 'pro' },
    { key: 'banned', type: 'person', operator: 'is_not', value: true },
    { key: 'email', type: 'person', operator: 'not_icontains', value: '@competitor.com' },
  );
  assert.ok(evaluateOne(filters, { person_properties: { plan: 'PRO' } }).enabled);
  assert.not.ok(evaluateOne(filters, { person_properties: { plan: 'pro', banned: 'true' } }).enabled);
  assert.not.ok(evaluateOne(filters, { person_properties: { plan: 'pro', email: 'a@competitor.com' } }).enabled);
  assert.not.ok(evaluateOne(filters, { person_properties: {} }).enabled);
});

flags('property names that exist on Object.prototype are only read when present', () => {
  const filters = personCondition({ key: 'constructor', type: 'person', operator: 'is_set' });
  assert.not.ok(evaluateOne(filters, { person_properties: {} }).enabled);
  assert.ok(evaluateOne(filters, { person_properties: { constructor: 'x' } }).enabled);
});

flags('an unknown operator never matches', () => {
  const filters = personCondition({ key: 'plan', type: 'person', operator: 'sounds_like', value: 'pro' });
  const f = evaluateOne(filters, { person_properties: { plan: 'pro' } });
  assert.is(f.enabled, false);
  assert.is(f.reason.code, 'no_condition_match');
});

flags.run();
