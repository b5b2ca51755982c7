// The Hog parser after a source that traps it (src/hog/parser.ts): a chain of thousands of
// `+`, which no nesting bound counts, exhausts the WASM parser's stack; the instance is not
// usable after that (every later compile in the thread failed), so a spare takes over at once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileProgram, initHog } from '../../src/hog/index.js';
import { TOO_DEEP_TO_PARSE } from '../../src/hogql/index.js';

const s = suite('hog: the parser after a trap');
s.before(() => initHog());

s('code past the parser\'s stack is a compile error, and the next program compiles', () => {
  const trapped = compileProgram(`return ${Array(3_000).fill('x').join('+')}`);
  assert.is(trapped.ok, false);
  assert.is(!trapped.ok && trapped.error.message, TOO_DEEP_TO_PARSE);
  const next = compileProgram('return 1 + 2');
  assert.ok(next.ok, JSON.stringify(next));
});

s.run();
