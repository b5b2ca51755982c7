// measureJson: how many values a parsed JSON value holds and whether it nests deeper
// than allowed, walked without recursion and stopped at the first bound passed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { measureJson, TOO_DEEP } from '../src/json.js';

const s = suite('measureJson');

const chain = (levels: number, leaf: unknown = 1): unknown => JSON.parse(`${'{"a":'.repeat(levels)}${JSON.stringify(leaf)}${'}'.repeat(levels)}`);

s('scalars hold nothing; objects and arrays count their members and elements at every level', () => {
  for (const v of [null, 1, 'x', true]) assert.is(measureJson(v, 1), 0);
  assert.is(measureJson({}, 1), 0);
  assert.is(measureJson({ a: 1, b: [1, 2, { c: null }] }, 3), 6);
});

s('the value itself is level 1: `levels` objects and arrays nested pass, one more is TOO_DEEP', () => {
  assert.is(measureJson(chain(100), 100), 100);
  assert.is(measureJson(chain(101), 100), TOO_DEEP);
  assert.is(measureJson([[[]]], 3), 2);
  assert.is(measureJson([[[]]], 2), TOO_DEEP);
  assert.is(measureJson({}, 0), TOO_DEEP);
});

s('any depth is walked without overflowing the stack', () => {
  assert.is(measureJson(chain(200_000), 100), TOO_DEEP);
  assert.is(measureJson(chain(200_000), 300_000), 200_000);
});

s('the count stops just past maxValues', () => {
  const wide = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i]));
  assert.is(measureJson(wide, 1, 1000), 1000);
  assert.is(measureJson(wide, 1, 10), 11);
});

s('a walk stopped early leaves the next one a clean start', () => {
  assert.is(measureJson(chain(500), 100), TOO_DEEP);
  assert.is(measureJson({ a: { b: 1 } }, 2), 2);
});

s.run();
