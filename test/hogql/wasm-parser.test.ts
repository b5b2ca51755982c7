// The WASM parser behind one call per text (src/hogql/wasm-parser.ts): a text that exhausts
// its stack (a long chain of `+`, which no bound before it counts) traps, and the module is
// unusable after a trap; the instance is replaced and the text answered as a parse failure.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createWasmParser } from '../../src/hogql/wasm-parser.js';
import { TOO_DEEP_TO_PARSE } from '../../src/hogql/index.js';

const s = suite('hogql: the WASM parser after a trap');

s('a text past its stack is a parse failure, and the texts after it parse as before', async () => {
  const parse = await createWasmParser();
  const sum = JSON.parse(await parse('expr', '1 + 2'));
  assert.equal(JSON.parse(await parse('expr', Array(2_000).fill('1').join('+'))), { error: true, message: TOO_DEEP_TO_PARSE });
  assert.equal(JSON.parse(await parse('expr', '1 + 2')), sum);
  assert.is(JSON.parse(await parse('select', 'select event from events')).node, 'SelectQuery');
});

s.run();
