// hedgerow's compiler against PostHog's: bytecode PostHog published (snapshots and test
// assertions, test/hog/posthog/) must come out op for op the same.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileExpression } from '../../src/hog/index.js';
import type { Bytecode } from '../../src/hog/index.js';
import { bytecodeOf, repoRoot } from './helpers.js';

const data = (name: string) => readFileSync(join(repoRoot, 'test/hog/posthog', name), 'utf8');
const json = <T>(name: string) => JSON.parse(data(name)) as T;

const same = suite('PostHog bytecode');

same('expressions of test_bytecode.py', () => {
  for (const [source, expected] of json<[string, Bytecode][]>('expressions.json')) {
    const compiled = compileExpression(source);
    assert.ok(compiled.ok, source);
    if (compiled.ok) assert.equal(compiled.bytecode, expected, source);
  }
});

same('catchAfterReturn.hoge: functions, try/catch with returns, lambdas', () => {
  assert.equal(bytecodeOf(data('catch-after-return.hog')), json('catch-after-return.json'));
});

same('between.hoge: between and not between, null when an operand is null', () => {
  assert.equal(bytecodeOf(data('between.hog')), json('between.json'));
});

same('dicts.hoge: dictionary literals, keys from variables, access', () => {
  assert.equal(bytecodeOf(data('dicts.hog')), json('dicts.json'));
});

same('the program of test_hog_function.py', () => {
  for (const [source, expected] of json<{ program: [string, Bytecode][] }>('api.json').program) {
    assert.equal(bytecodeOf(source), expected);
  }
});

// The VM ships bytecode PostHog compiled for eight library functions (src/stl/bytecode.ts):
// the bodies hedgerow compiles from library.hog must be the same.
function vmLibrary(): Record<string, [string[], Bytecode]> {
  const text = readFileSync(join(repoRoot, 'node_modules/@posthog/hogvm/src/stl/bytecode.ts'), 'utf8');
  const literal = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1).replace(/,\s*}$/, '}');
  return JSON.parse(literal) as Record<string, [string[], Bytecode]>;
}

/** The top-level function declarations of a program: name, parameters count and body. */
function functionBodies(bytecode: Bytecode): Map<string, { argCount: number; body: Bytecode }> {
  const found = new Map<string, { argCount: number; body: Bytecode }>();
  let i = 2;
  while (i < bytecode.length && bytecode[i] === 52) {
    const [name, argCount, , length] = bytecode.slice(i + 1, i + 5) as [string, number, number, number];
    found.set(name, { argCount, body: bytecode.slice(i + 5, i + 5 + length) });
    i += 5 + length;
    const upvalues = bytecode[i + 1] as number; // CLOSURE n, then n pairs
    i += 2 + upvalues * 2;
  }
  return found;
}

same('the VM library functions PostHog compiled (BYTECODE_STL)', () => {
  const library = vmLibrary();
  // PostHog compiles each function alone (a call to another is a global call).
  const ours = new Map(data('library.hog').split(/\n(?=fun )/).flatMap((f) => [...functionBodies(bytecodeOf(f))]));
  assert.equal([...ours.keys()].sort(), Object.keys(library).sort());
  for (const [name, [params, expected]] of Object.entries(library)) {
    assert.is(ours.get(name)?.argCount, params.length, name);
    assert.equal(ours.get(name)?.body, expected, name);
  }
});

same.run();
