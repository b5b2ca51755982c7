// The type PostHog's ingestion gives a property on first sight (src/definitions/infer.ts),
// rule by rule, each with the facts of PostHog's property-defs service.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { detectPropertyType } from '../../src/definitions/index.js';
import { isLikelyDate } from '../../src/definitions/infer.js';

const s = suite('definitions: type on first sight');
// 2024-06-15T00:00:00Z: "recent" unix times are those from about six months before.
const NOW = Date.UTC(2024, 5, 15);
const type = (key: string, value: unknown) => detectPropertyType(key, value, NOW);

s('numbers are Numeric, booleans Boolean, other text String', () => {
  assert.equal([type('price', 9), type('price', 9.5), type('count', -3), type('ok', true), type('ok', false), type('name', 'Ada')],
    ['Numeric', 'Numeric', 'Numeric', 'Boolean', 'Boolean', 'String']);
});

s('the texts "true" and "false" (either case, spaces trimmed) are Boolean; other spellings are text', () => {
  assert.equal([type('flag', 'true'), type('flag', 'FALSE'), type('flag', ' true '), type('flag', 'True'), type('flag', 'yes')],
    ['Boolean', 'Boolean', 'Boolean', 'String', 'String']);
});

s('null, objects and arrays give no type', () => {
  assert.equal([type('a', null), type('a', { x: 1 }), type('a', [1, 2])], [null, null, null]);
});

s('texts in a date format are DateTime whatever the key', () => {
  for (const v of ['2024-06-01', '2024/06/01', '01-06-2024', '2024-06-01T10:00:00Z', '2024-06-01 10:00:00', '2024-06-01T10:00:00.123+02:00', 'Tue, 1 Jul 2003 10:52:37 +0200']) {
    assert.is(type('signup', v), 'DateTime', v);
  }
  // Not dates: a month past 29 in the first place, a bare time, a year alone, words.
  for (const v of ['2024-61-01', '10:00:00', '2024', 'June 1st', '2024-06-01T10']) assert.is(type('signup', v), 'String', v);
  assert.ok(isLikelyDate('2024-06-01t10:00:00z'));
});

s('a recent unix time (whole, at most ~six months old) under a key naming a time is DateTime', () => {
  const recent = Math.floor(NOW / 1000) - 86_400;
  const old = Math.floor(NOW / 1000) - 200 * 86_400;
  assert.equal([type('created_at', recent), type('signupTime', recent), type('last-at', recent), type('updatedAt', recent), type('date_seen', recent)],
    ['DateTime', 'DateTime', 'DateTime', 'DateTime', 'DateTime']);
  // Old, fractional, or under a key that names no time: a number.
  assert.equal([type('created_at', old), type('created_at', recent + 0.5), type('price', recent)], ['Numeric', 'Numeric', 'Numeric']);
});

s('campaign, feature flag and survey keys are always String, even when the first value is a number or boolean', () => {
  assert.equal([type('utm_source', 123), type('UTM_campaign', true), type('$initial_utm_term', 5), type('$feature/beta', false),
    type('$feature_flag_response', true), type('$survey_response', 4), type('$survey_response_2', 5)],
  ['String', 'String', 'String', 'String', 'String', 'String', 'String']);
});

s.run();
