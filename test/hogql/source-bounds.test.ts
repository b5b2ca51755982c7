// The nesting scanner (src/hogql/source-bounds.ts): brackets counted in code, not in
// strings, identifiers or comments; an f-string's braces hold code; a template is text
// with code in braces. And the bounds it enforces before the parser runs.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkSource, MAX_SOURCE_BYTES, MAX_SOURCE_DEPTH, nestingDepth, SourceLimitError } from '../../src/hogql/index.js';

const s = suite('hogql source bounds');

s('counts parentheses, brackets and braces together', () => {
  assert.is(nestingDepth('1 + 2'), 0);
  assert.is(nestingDepth('f(g([1, {\'a\': (2)}]))'), 5);
  assert.is(nestingDepth('if (a) { if (b) { return [c] } }'), 3);
  assert.is(nestingDepth('('.repeat(400) + '1' + ')'.repeat(400)), 400);
});

s('brackets in strings, quoted identifiers and comments do not count', () => {
  assert.is(nestingDepth("print('((((((((')"), 1);
  assert.is(nestingDepth('print("((((", `[[[[`)'), 1);
  assert.is(nestingDepth("print('it\\'s ((((')"), 1);
  assert.is(nestingDepth('x -- ((((\n+ 1'), 0);
  assert.is(nestingDepth('x // ((((\n+ (1)'), 1);
  assert.is(nestingDepth('x /* (((( */ + (1)'), 1);
});

s('an f-string\'s braces hold code; its text does not count', () => {
  assert.is(nestingDepth("f'(((( {f(x)} (((('"), 2);
  assert.is(nestingDepth("f'{ f'{(1)}' }'"), 3);
  assert.is(nestingDepth("left(x, 1)"), 1);
});

s('a template is text with code in braces', () => {
  assert.is(nestingDepth('Hello ((( {event.properties.name} [[[', true), 1);
  assert.is(nestingDepth('{f(g(h(1)))}', true), 4);
  assert.is(nestingDepth('no code at all: ) ] }', true), 0);
});

s('unbalanced closers never make the depth negative', () => {
  assert.is(nestingDepth(')))(('), 2);
});

s('checkSource refuses past the depth and the size, naming the limit', () => {
  checkSource('('.repeat(MAX_SOURCE_DEPTH) + ')'.repeat(MAX_SOURCE_DEPTH));
  try {
    checkSource('('.repeat(MAX_SOURCE_DEPTH + 1));
    assert.unreachable();
  } catch (err) {
    assert.instance(err, SourceLimitError);
    assert.is((err as SourceLimitError).kind, 'depth');
    assert.match((err as Error).message, `at most ${MAX_SOURCE_DEPTH}`);
  }
  try {
    checkSource(`'${'x'.repeat(MAX_SOURCE_BYTES)}'`);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, SourceLimitError);
    assert.is((err as SourceLimitError).kind, 'size');
  }
});

s.run();
