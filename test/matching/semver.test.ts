// semver_* operators: versions normalized as PostHog does, compared and ranged as the
// Cargo `semver` crate does.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseVersion } from '../../src/matching/semver.js';
import { matches } from '../flags/helpers.js';

const parse = suite('semver: reading versions');

parse('drops a leading v, pads, strips leading zeros', () => {
  assert.equal(parseVersion('v1.2.3'), { major: 1, minor: 2, patch: 3, pre: [], build: [] });
  assert.equal(parseVersion('3.10'), { major: 3, minor: 10, patch: 0, pre: [], build: [] });
  assert.equal(parseVersion('3.08'), { major: 3, minor: 8, patch: 0, pre: [], build: [] });
  assert.equal(parseVersion('3'), { major: 3, minor: 0, patch: 0, pre: [], build: [] });
  assert.equal(parseVersion('1.2-beta.1+build.7'), { major: 1, minor: 2, patch: 0, pre: ['beta', '1'], build: ['build', '7'] });
});

parse('rejects what is not a version', () => {
  for (const bad of ['', 'abc', '1.2.3.4', '1..2', '1.2.x', '1.2.3-', '1.2.3-01', 'version 1', '1.2.3 beta']) {
    assert.is(parseVersion(bad), undefined, bad);
  }
});

parse.run();

const compare = suite('semver: eq, neq, gt, gte, lt, lte');

compare('orders by major, minor, patch', () => {
  assert.ok(matches('semver_eq', '1.2.3', 'v1.2.3'));
  assert.ok(matches('semver_eq', '3.8.0', '3.08'));
  assert.ok(matches('semver_neq', '1.2.3', '1.2.4'));
  assert.ok(matches('semver_gt', '1.2.3', '1.10.0'));
  assert.not.ok(matches('semver_gt', '1.10.0', '1.9.9'));
  assert.ok(matches('semver_gte', '2.0', '2.0.0'));
  assert.ok(matches('semver_lt', '2.0.0', '1.99.99'));
  assert.ok(matches('semver_lte', '2.0.0', '2.0.0'));
});

compare('a pre-release comes before its release', () => {
  assert.ok(matches('semver_lt', '1.0.0', '1.0.0-alpha'));
  assert.ok(matches('semver_lt', '1.0.0-beta', '1.0.0-alpha.1'));
  assert.ok(matches('semver_gt', '1.0.0-alpha.1', '1.0.0-alpha.beta'));
  assert.ok(matches('semver_gt', '1.0.0-alpha.2', '1.0.0-alpha.10'));
});

compare('unparseable sides never match', () => {
  assert.not.ok(matches('semver_eq', '1.2.3', 'not-a-version'));
  assert.not.ok(matches('semver_neq', '1.2.3', 'not-a-version'));
  assert.not.ok(matches('semver_gt', 'garbage', '1.2.3'));
  assert.not.ok(matches('semver_gt', '1.0.0', undefined));
});

compare.run();

const ranges = suite('semver: tilde, caret, wildcard');

ranges('tilde allows patch updates', () => {
  assert.ok(matches('semver_tilde', '1.2.3', '1.2.3'));
  assert.ok(matches('semver_tilde', '1.2.3', '1.2.9'));
  assert.not.ok(matches('semver_tilde', '1.2.3', '1.3.0'));
  assert.not.ok(matches('semver_tilde', '1.2.3', '1.2.2'));
  assert.ok(matches('semver_tilde', '1.2', '1.2.5'));
});

ranges('caret allows updates that keep the leftmost non-zero part', () => {
  assert.ok(matches('semver_caret', '1.2.3', '1.9.0'));
  assert.not.ok(matches('semver_caret', '1.2.3', '2.0.0'));
  assert.ok(matches('semver_caret', '0.2.3', '0.2.9'));
  assert.not.ok(matches('semver_caret', '0.2.3', '0.3.0'));
  assert.ok(matches('semver_caret', '0.0.3', '0.0.3'));
  assert.not.ok(matches('semver_caret', '0.0.3', '0.0.4'));
});

ranges('wildcards fix the leading parts', () => {
  assert.ok(matches('semver_wildcard', '1.2.*', '1.2.7'));
  assert.not.ok(matches('semver_wildcard', '1.2.*', '1.3.0'));
  assert.ok(matches('semver_wildcard', '1.*', '1.99.0'));
  assert.ok(matches('semver_wildcard', '1.*.*', '1.0.1'));
  assert.not.ok(matches('semver_wildcard', '1.*', '2.0.0'));
  assert.ok(matches('semver_wildcard', '*', '42.0.0'));
  assert.ok(matches('semver_wildcard', '3.08.*', '3.8.1'));
  assert.not.ok(matches('semver_wildcard', '1.*.3', '1.2.3'), 'a number after a wildcard is invalid');
});

ranges('pre-releases only fall in a range that names their own version', () => {
  assert.not.ok(matches('semver_tilde', '1.2.3', '1.2.4-beta'));
  assert.ok(matches('semver_tilde', '1.2.3-beta', '1.2.3-beta.2'));
  assert.not.ok(matches('semver_wildcard', '*', '1.0.0-rc.1'));
});

ranges('an invalid requirement never matches', () => {
  assert.not.ok(matches('semver_caret', '1.2.3.4', '1.2.3'));
  assert.not.ok(matches('semver_tilde', '~1.2', '1.2.0'));
  assert.not.ok(matches('semver_caret', '1.0.0', 'junk'));
});

ranges.run();
