// is_date_before / is_date_after / is_date_exact with a fixed clock. Relative dates count
// back from the clock; absolute ones are ISO 8601 in UTC unless they carry an offset.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAbsoluteDate, parseRelativeDate, resolveRelativeDate } from '../../src/matching/dates.js';
import { NOW } from '../flags/conformance.js';
import { evaluateOne, matches, personCondition } from '../flags/helpers.js';

const at = (iso: string) => Date.parse(iso);

const relative = suite('dates: relative');

relative('hours, days and weeks are fixed lengths back from now', () => {
  const resolve = (text: string, now = NOW) => resolveRelativeDate(parseRelativeDate(text)!, now);
  assert.is(resolve('-3h'), at('2024-06-15T09:00:00Z'));
  assert.is(resolve('3h'), at('2024-06-15T09:00:00Z'));
  assert.is(resolve('-7d'), at('2024-06-08T12:00:00Z'));
  assert.is(resolve('2w'), at('2024-06-01T12:00:00Z'));
  assert.is(resolve('000h'), NOW);
});

relative('months and years are calendar steps, clamping the day', () => {
  const resolve = (text: string, now: number) => resolveRelativeDate(parseRelativeDate(text)!, now);
  assert.is(resolve('-1m', NOW), at('2024-05-15T12:00:00Z'));
  assert.is(resolve('1m', at('2024-03-31T08:30:00.250Z')), at('2024-02-29T08:30:00.250Z'));
  // Each month step clamps, so the day never grows back.
  assert.is(resolve('2m', at('2024-03-31T00:00:00Z')), at('2024-01-29T00:00:00Z'));
  assert.is(resolve('12m', NOW), resolve('1y', NOW));
  assert.is(resolve('1y', at('2024-02-29T00:00:00Z')), at('2023-02-28T00:00:00Z'));
  assert.is(resolve('-4m', at('2020-04-03T00:00:00Z')), at('2019-12-03T00:00:00Z'));
});

relative('only -N or N followed by h, d, w, m or y, below 10000', () => {
  for (const bad of ['1', '1x', '1.2y', '1s', 'bazinga', '-d', '10000d', ' 1d']) assert.is(parseRelativeDate(bad), undefined, bad);
  assert.ok(parseRelativeDate('9999y'));
});

relative.run();

const absolute = suite('dates: absolute');

absolute('dates, naive date-times and RFC 3339 with offsets', () => {
  assert.is(parseAbsoluteDate('2024-06-01'), at('2024-06-01T00:00:00Z'));
  assert.is(parseAbsoluteDate('2024-06-01 10:20'), at('2024-06-01T10:20:00Z'));
  assert.is(parseAbsoluteDate('2024-06-01T10:20:30.5'), at('2024-06-01T10:20:30.500Z'));
  assert.is(parseAbsoluteDate('2024-06-01T10:20:30Z'), at('2024-06-01T10:20:30Z'));
  assert.is(parseAbsoluteDate('2024-06-01T10:20:30+02:00'), at('2024-06-01T08:20:30Z'));
  assert.is(parseAbsoluteDate('2024-06-01 10:20:30.123456-05:30'), at('2024-06-01T15:50:30.123Z') + 0.456);
});

absolute('impossible or foreign text is no date', () => {
  for (const bad of ['2024-02-30', '2024-13-01', '2024-06-01T24:00', '06/01/2024', 'yesterday', '2024-06-01T10:20+02:00']) {
    assert.is(parseAbsoluteDate(bad), undefined, bad);
  }
});

absolute.run();

const operators = suite('dates: operators');

operators('before, after and exact against relative and absolute filters', () => {
  assert.ok(matches('is_date_before', '-7d', '2024-06-01'));
  assert.not.ok(matches('is_date_before', '-7d', '2024-06-10'));
  assert.ok(matches('is_date_after', '-7d', '2024-06-10T00:00:00Z'));
  assert.ok(matches('is_date_after', '2024-01-01', '2024-01-01T00:00:01Z'));
  assert.not.ok(matches('is_date_after', '2024-01-01', '2024-01-01'));
  assert.ok(matches('is_date_exact', '2024-01-01', '2024-01-01T00:00:00Z'));
  assert.ok(matches('is_date_exact', '2024-01-01T01:00:00+01:00', '2024-01-01'));
});

operators('the clock moves relative filters', () => {
  const joined = '2024-06-10T00:00:00Z';
  assert.not.ok(matches('is_date_before', '-7d', joined, NOW));
  assert.ok(matches('is_date_before', '-7d', joined, at('2024-07-01T00:00:00Z')));
});

operators('numbers and numeric strings are Unix seconds', () => {
  const seconds = at('2024-06-01T00:00:00Z') / 1000;
  assert.ok(matches('is_date_exact', '2024-06-01', seconds));
  assert.ok(matches('is_date_exact', '2024-06-01', String(seconds)));
  assert.ok(matches('is_date_before', '2024-06-01', seconds - 0.5));
});

operators('a relative property value counts back from the clock too', () => {
  assert.ok(matches('is_date_before', '-1d', '-2d'));
});

operators('absent, unparseable or non-string filters never match', () => {
  assert.not.ok(matches('is_date_before', '-7d', undefined));
  assert.not.ok(matches('is_date_before', '-7d', 'not a date'));
  assert.not.ok(matches('is_date_before', '-7d', true));
  assert.not.ok(matches('is_date_before', 'not a date', '2024-01-01'));
  assert.not.ok(matches('is_date_before', 1718000000, '2024-01-01'));
});

operators('in a flag, the context clock decides', () => {
  const filters = personCondition({ key: 'signed_up', type: 'person', operator: 'is_date_after', value: '-30d' });
  const person_properties = { signed_up: '2024-06-01T00:00:00Z' };
  assert.ok(evaluateOne(filters, { person_properties, now: NOW }).enabled);
  assert.not.ok(evaluateOne(filters, { person_properties, now: at('2024-08-01T00:00:00Z') }).enabled);
});

operators.run();
