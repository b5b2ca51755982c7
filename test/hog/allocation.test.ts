// Checked allocations (src/hog/checked-stl.ts, src/hog/allocation.ts): what a library call
// is about to make is measured and refused before it is made, with the VM's own error, and
// the library's answers are unchanged below the bounds.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execute } from '../../src/hog/index.js';
import { jsonTextCost, occurrences, printCost, urlEncodedLength, vmCost } from '../../src/hog/allocation.js';
import { printHogStringOutput } from '../../src/hog/vm.js';
import { bytecodeOf } from './helpers.js';

const MB = 1024 * 1024;
const run = (source: string, memoryLimit = MB) => execute(bytecodeOf(source), {}, { memoryLimit, timeoutMs: 5000 });
const memoryError = /^Memory limit of 1048576 bytes exceeded/;

const measures = suite('hog allocation: measures');

measures('vmCost counts as the VM does, and arrays by their length, holes included', () => {
  assert.is(vmCost('abc', Infinity), 8 + 3);
  assert.is(vmCost([1, 'ab'], Infinity), 8 + 8 + 10);
  assert.is(vmCost(new Map([['k', 1]]), Infinity), 8 + 9 + 8);
  const sparse: unknown[] = [1];
  sparse[999_999] = 1;
  assert.ok(vmCost(sparse, Infinity) >= 8 * 1_000_000);
});

measures('vmCost stops soon after it passes stopAt, and a cycle ends the walk', () => {
  const a: unknown[] = [];
  a.push(a, a);
  assert.ok(vmCost(a, 100) < 1000);
  const long = new Array(10_000_000);
  assert.ok(vmCost(long, 1000) > 1000);
});

measures('printCost is an upper bound of what printing makes', () => {
  const values: unknown[] = [
    'plain', ['it\'s', 'new\nline', 12345, -0.5, null, true], new Map<unknown, unknown>([['k', [1, 2, 3]], ['n', new Map([['x', 'y']])]]),
    [[[]]], 1e21, { a: 1 },
  ];
  for (const v of values) assert.ok(printCost(v, Infinity).chars >= printHogStringOutput(v).length, String(printHogStringOutput(v)));
});

measures('jsonTextCost counts objects, arrays, scalars and string characters from the text', () => {
  const cost = jsonTextCost('[{"ab": 1}, [2, true], "xyz"]');
  // 3 containers-or-values besides 6 scalars/strings: [, {, "ab", 1, [, 2, true, "xyz"
  assert.is(cost.vm, 8 * 8 + 'abxyz'.length);
  assert.ok(jsonTextCost('[' + '{},'.repeat(1000) + '{}]').heap > 1000 * 190);
});

measures('occurrences and urlEncodedLength agree with the library they stand for', () => {
  assert.is(occurrences('aaaa', 'aa'), 'aaaa'.split('aa').length - 1);
  assert.is(occurrences('abc', ''), 4);
  for (const s of ['a b/c?', 'żółw', '😀x', "-_.!~*'()"]) assert.is(urlEncodedLength(s), encodeURIComponent(s).length);
});

const checked = suite('hog allocation: checked library');

checked('range(100000000) is refused before the array exists', async () => {
  const before = process.memoryUsage().heapUsed;
  const report = await run('return length(range(100000000))', 64 * MB);
  assert.match(report.error?.message ?? '', /^Memory limit of 67108864 bytes exceeded. Tried to allocate 800000008 bytes/);
  assert.ok(process.memoryUsage().heapUsed - before < 100 * MB);
});

checked('range answers as the library does below the bound', async () => {
  const report = await run('return [range(3), range(2, 5), range(5, 2), range(2.7), range(-1)]');
  assert.equal(report.result, [[0, 1, 2], [2, 3, 4], [], [0, 1], []]);
});

checked('string doubling stops at the memory limit, with the VM\'s error', async () => {
  const report = await run("let s := 'x'; while (true) { s := concat(s, s) }");
  assert.match(report.error?.message ?? '', memoryError);
});

checked('a sparse array is counted by its length: copying, listing or returning it is refused', async () => {
  for (const tail of ['return length(keys(a))', 'return length(arrayPushBack(a, 1))', 'print(a)', 'return a']) {
    const report = await run(`let a := [1]; a[1000000] := 1; ${tail}`);
    assert.match(report.error?.message ?? '', memoryError, tail);
  }
});

checked('splitByString, replaceAll and arrayStringConcat are measured from their arguments', async () => {
  const big = "let s := 'x'; for (let i in range(17)) { s := s || s }; ";
  for (const call of ["splitByString('', s)", "replaceAll(s, 'x', '$\\'')", "replaceAll(s, 'x', 'yyyyyyyyyy')", "arrayStringConcat(range(2000), substring(s, 1, 1024))"]) {
    const report = await run(`${big}return length(${call})`);
    assert.match(report.error?.message ?? '', memoryError, call);
  }
  const small = await run("return [splitByString(',', 'a,b'), replaceAll('aXa', 'a', 'bb'), arrayStringConcat([1, 'x', null], '-')]");
  assert.equal(small.result, [['a', 'b'], 'bbXbb', '1-x-']);
});

checked('jsonParse counts the Maps its objects become, past what the VM would count', async () => {
  // 65,536 empty objects: 0.5 MB to the VM, about 17 MB of heap.
  const report = await run("let s := '{}'; for (let i in range(16)) { s := concat(s, ',', s) }; return length(jsonParse(concat('[', s, ']')))");
  assert.match(report.error?.message ?? '', /^Memory limit of 1048576 bytes exceeded. Tried to allocate about/);
  const ok = await run('return jsonParse(\'{"a": [1, {"b": null}]}\')');
  assert.equal(ok.result, { a: [1, { b: null }] });
});

checked('what print() keeps over a run counts against the limit', async () => {
  const report = await run("let s := 'x'; for (let i in range(18)) { s := s || s }; for (let i in range(10)) { print(s) }");
  assert.match(report.error?.message ?? '', memoryError);
  assert.is(report.logs.length, 3);
});

measures.run();
checked.run();
