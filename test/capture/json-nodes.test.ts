import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { exceedsJsonNodes } from '../../src/capture/json-nodes.js';

const s = suite('counting JSON objects and arrays');
const over = (text: string, max: number) => exceedsJsonNodes(Buffer.from(text), max);

s('objects and arrays count, at any depth', () => {
  assert.not.ok(over('[{},{},[]]', 4));
  assert.ok(over('[{},{},[]]', 3));
  assert.ok(over('[[[[[1]]]]]', 4));
  assert.not.ok(over('{"a":1,"b":"x"}', 1));
});

s('brackets inside strings, escaped quotes included, do not count', () => {
  assert.not.ok(over('{"a":"{[{[","b":"\\"[{","c":"\\\\"}', 1));
  assert.ok(over('{"a":"\\\\","b":{}}', 1));
});

s('text that is not JSON is counted all the same (the parser refuses it afterwards)', () => {
  assert.ok(over('{{{{', 3));
  assert.not.ok(over('"{{{{', 0));
});

s.run();
