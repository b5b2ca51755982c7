// The compiler, construct by construct: the bytecode each one becomes (checked by hand
// against PostHog's compiler rules), and the errors it reports with their place.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileExpression, compileProgram } from '../../src/hog/index.js';
import { bytecodeOf } from './helpers.js';

const body = (source: string) => bytecodeOf(source).slice(2);
const expr = (source: string) => {
  const compiled = compileExpression(source);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.bytecode.slice(2);
};
const error = (source: string) => {
  const compiled = compileProgram(source);
  assert.not.ok(compiled.ok, 'should not compile');
  return compiled.ok ? null : compiled.error;
};

const constants = suite('hog compiler: constants and operators');

constants('every program starts with the header ["_H", 1]', () => {
  assert.equal(bytecodeOf('').slice(0, 2), ['_H', 1]);
  assert.equal(bytecodeOf(''), ['_H', 1]);
});

constants('constants: integers, floats (also integral ones), strings, booleans, null', () => {
  assert.equal(expr('42'), [33, 42]);
  assert.equal(expr('-3'), [33, -3]);
  assert.equal(expr('2.5'), [34, 2.5]);
  assert.equal(expr('1.0'), [34, 1]);
  assert.equal(expr('1e3'), [34, 1000]);
  assert.equal(expr("'s'"), [32, 's']);
  assert.equal(expr('true'), [29]);
  assert.equal(expr('false'), [30]);
  assert.equal(expr('null'), [31]);
});

constants('binary operators push the right operand first', () => {
  assert.equal(expr('1 - 2'), [33, 2, 33, 1, 7]);
  assert.equal(expr('1 * 2 / 3 % 4'), [33, 4, 33, 3, 33, 2, 33, 1, 8, 9, 10]);
  assert.equal(expr("'a' like 'b'"), [32, 'b', 32, 'a', 17]);
  assert.equal(expr("'a' not ilike 'b'"), [32, 'b', 32, 'a', 20]);
  assert.equal(expr("'a' =~ 'b'"), [32, 'b', 32, 'a', 23]);
  assert.equal(expr("'a' =~* 'b'"), [32, 'b', 32, 'a', 25]);
  assert.equal(expr('1 in [1]'), [33, 1, 43, 1, 33, 1, 21]);
  assert.equal(expr('1 not in (1, 2)'), [33, 1, 33, 2, 44, 2, 33, 1, 22]);
});

constants('and/or take all their operands (no short circuit); not is one op', () => {
  assert.equal(expr('true and false and null'), [29, 30, 31, 3, 3]);
  assert.equal(expr('not (1 or 2)'), [33, 1, 33, 2, 4, 2, 5]);
});

constants('between holds its operands in hidden locals and is null when one is null (PostHog\'s between.hoge)', () => {
  assert.equal(expr('x between 1 and 2'), [
    31, 32, 'x', 1, 1, 33, 1, 33, 2, 36, 2, 31, 12, 36, 3, 31, 12, 36, 1, 31, 12, 3, 3, 40, 14,
    36, 2, 36, 1, 14, 36, 3, 36, 1, 16, 3, 2, 39, 1, 31, 37, 0, 35, 35, 35,
  ]);
  // Negated: the two comparisons joined by OR.
  assert.equal(expr('x not between 1 and 2').slice(25, 37), [36, 2, 36, 1, 15, 36, 3, 36, 1, 13, 4, 2]);
  // Where the statement has other values on the stack, it runs as a lambda called with the operands.
  const nested = expr('concat(\'a\', x between 1 and 2)');
  assert.ok(nested.includes(52), 'a CALLABLE');
  assert.equal(nested.slice(-7), [53, 0, 54, 3, 2, 'concat', 2]);
});

const names = suite('hog compiler: names and access');

names('a global chain is pushed last element first, then GET_GLOBAL', () => {
  assert.equal(expr('event.properties.$browser'), [32, '$browser', 32, 'properties', 32, 'event', 1, 3]);
});

names('a local is read by stack slot; further keys are properties', () => {
  assert.equal(body('let a := {}; let b := a.x.y'), [42, 0, 36, 0, 32, 'x', 45, 32, 'y', 45, 35, 35]);
});

names('index, tuple and null-safe access', () => {
  assert.equal(body('let a := [1]; a[1]; a?.[1]; a.1; a?.b'), [
    33, 1, 43, 1,
    36, 0, 33, 1, 45, 35,
    36, 0, 33, 1, 48, 35,
    36, 0, 33, 1, 45, 35,
    36, 0, 32, 'b', 48, 35,
    35,
  ]);
});

names('?? and ifNull keep the value unless it is null', () => {
  assert.equal(expr('a ?? 1'), [32, 'a', 1, 1, 47, 3, 35, 33, 1]);
  assert.equal(expr('ifNull(a, 1)'), expr('a ?? 1'));
});

const assignments = suite('hog compiler: declarations and assignment');

assignments('let declares a local in the slot of its value; a block pops its locals', () => {
  assert.equal(body('let a := 1; let b; { let c := 2 }'), [33, 1, 31, 33, 2, 35, 35, 35]);
});

assignments('assignment to a local, a property, an index and a tuple element', () => {
  assert.equal(body('let a := {}; a := 2'), [42, 0, 33, 2, 37, 0, 35]);
  assert.equal(body("let a := {}; a.b.c := 1"), [42, 0, 36, 0, 32, 'b', 45, 32, 'c', 33, 1, 46, 35]);
  assert.equal(body("let a := {}; a['k'] := 1"), [42, 0, 36, 0, 32, 'k', 33, 1, 46, 35]);
  assert.equal(body('let a := (1, 2); a.2 := 3'), [33, 1, 33, 2, 44, 2, 36, 0, 33, 2, 33, 3, 46, 35]);
});

assignments('globals cannot be assigned; a name cannot be declared twice in one scope', () => {
  assert.equal(error('x := 1')?.message, 'Variable "x" not declared in this scope. Can not assign to globals.');
  assert.equal(error('let x := 1\nlet x := 2')?.message, 'Variable `x` already declared in this scope');
  assert.ok(compileProgram('let x := 1; { let x := 2 }').ok, 'an inner scope may shadow');
});

const flow = suite('hog compiler: control flow');

flow('if/else jumps over the branch not taken', () => {
  assert.equal(body('if (a) { 1 } else { 2 }'), [32, 'a', 1, 1, 40, 5, 33, 1, 35, 39, 3, 33, 2, 35]);
  // An empty else block is no else at all.
  assert.equal(body('if (a) { 1 } else { }'), [32, 'a', 1, 1, 40, 3, 33, 1, 35]);
});

flow('ternaries and if() jump the same way; multiIf nests from the last branch', () => {
  assert.equal(expr('a ? 1 : 2'), [32, 'a', 1, 1, 40, 4, 33, 1, 39, 2, 33, 2]);
  assert.equal(expr('multiIf(a, 1, b, 2, 3)'), [32, 'a', 1, 1, 40, 4, 33, 1, 39, 12, 32, 'b', 1, 1, 40, 4, 33, 2, 39, 2, 33, 3]);
});

flow('while tests, runs the body and jumps back to the test', () => {
  assert.equal(body('while (a) { b }'), [32, 'a', 1, 1, 40, 7, 32, 'b', 1, 1, 35, 39, -13]);
});

flow('for runs initializer, test, body, increment; its variable lives in its own scope', () => {
  assert.equal(body('for (let i := 0; i < 2; i := i + 1) { }'), [
    33, 0,
    33, 2, 36, 0, 15,
    40, 9,
    33, 1, 36, 0, 6, 37, 0,
    39, -16,
    35,
  ]);
});

flow('for-in keeps the collection, its values, an index and a length in hidden locals', () => {
  assert.equal(body('for (let v in [7]) { }'), [
    33, 7, 43, 1,                         // __H_expr_H__ (slot 0)
    36, 0, 2, 'values', 1,                // __H_values_H__ (1)
    33, 1,                                // __H_index_H__ (2)
    36, 1, 2, 'length', 1,                // __H_limit_H__ (3)
    31,                                   // v (4)
    36, 3, 36, 2, 16, 40, 16,             // while index <= limit
    36, 1, 36, 2, 45, 37, 4,              // v := values[index]
    36, 2, 33, 1, 6, 37, 2,               // index := index + 1
    39, -23,
    35, 35, 35, 35, 35,
  ]);
  const withKeys = body('for (let k, v in {}) { }');
  assert.equal(withKeys.slice(0, 9), [42, 0, 36, 0, 2, 'keys', 1, 36, 0]);
});

flow('return, bare return and throw', () => {
  assert.equal(body('return 1'), [33, 1, 38]);
  assert.equal(body('return'), [31, 38]);
  assert.equal(body("throw Error('x')"), [32, 'x', 2, 'Error', 1, 49]);
});

flow('try/catch: TRY offset, catch area with e and type, typed catches, rethrow', () => {
  assert.equal(body('try { a } catch (e: RetryError) { b }'), [
    50, 9, 32, 'a', 1, 1, 35, 51,
    39, 23,
    36, 0, 32, 'type', 45,                // type := e.type
    32, 'RetryError', 36, 1, 11, 40, 7,   // not a RetryError: next catch
    32, 'b', 1, 1, 35,
    39, 2,                                // done: skip the rethrow
    35, 49,                               // rethrow
    35, 35,
  ]);
  assert.equal(error('try { 1 } catch (e) { 2 } finally { 3 }')?.message, 'finally blocks are not yet supported');
});

const functions = suite('hog compiler: functions, lambdas and closures');

functions('a function is CALLABLE with its body inline, then CLOSURE; calls go by slot', () => {
  assert.equal(body('fun f(a) { return a } f(1)'), [
    52, 'f', 1, 0, 3, 36, 0, 38,
    53, 0,
    33, 1, 36, 0, 54, 1, 35,
    35,
  ]);
});

functions('a body without return gets return null; a lambda expression is returned', () => {
  assert.equal(body('fun f() { }').slice(0, 7), [52, 'f', 0, 0, 2, 31, 38]);
  assert.equal(expr('x -> x'), [52, 'lambda', 1, 0, 3, 36, 0, 38, 53, 0]);
});

functions('captured variables become upvalues and are closed at the end of their scope', () => {
  assert.equal(body('let a := 1; let f := () -> a'), [
    33, 1,
    52, 'lambda', 0, 1, 3, 55, 0, 38,
    53, 1, true, 0,
    35, 57,
  ]);
  // Two levels out: the inner function takes its enclosing function's upvalue (isLocal false).
  const nested = body('let a := 1; let f := () -> () -> a');
  assert.equal(nested.slice(nested.indexOf(53), nested.indexOf(53) + 4), [53, 1, false, 0]);
});

functions('recursion reaches the function itself as an upvalue', () => {
  const code = body('fun f(n) { return f(n) }');
  assert.equal(code.slice(0, 12), [52, 'f', 1, 1, 7, 36, 0, 55, 0, 54, 1, 38]);
});

functions('calls with two parameter lists and calls of expressions', () => {
  assert.equal(expr('f(1)(2)'), [33, 2, 33, 1, 2, 'f', 1, 54, 1]);
  assert.equal(expr('(x -> x)(1)'), [33, 1, 52, 'lambda', 1, 0, 3, 36, 0, 38, 53, 0, 54, 1]);
});

const others = suite('hog compiler: collections, templates, hogqlx');

others('dicts, arrays and tuples', () => {
  assert.equal(expr("{'a': 1, 'b': [2, (3, 4)]}"), [32, 'a', 33, 1, 32, 'b', 33, 2, 33, 3, 33, 4, 44, 2, 43, 2, 42, 2]);
});

others('f-strings are concat calls; a lone placeholder is the value itself', () => {
  assert.equal(expr("f'a{b}c'"), [32, 'a', 32, 'b', 1, 1, 32, 'c', 2, 'concat', 3]);
});

others('hogqlx tags build __hx_tag dictionaries', () => {
  assert.equal(expr('<T a={1} />'), [32, '__hx_tag', 32, 'T', 32, 'a', 33, 1, 42, 2]);
});

const diagnostics = suite('hog compiler: errors and warnings');

diagnostics('errors carry line and column (from 1)', () => {
  assert.equal(error('let a := 1\nlet b := [1]\nprint(b[0])'), { message: 'Array access starts from 1', line: 3, column: 7 });
  const syntax = error('let a := \n  );');
  assert.is(syntax?.line, 2);
  assert.is(syntax?.column, 3);
});

diagnostics('calls to functions neither the VM nor the host has are warnings, not errors', () => {
  const compiled = compileProgram('fetch(1)\nmystery(2)', { functions: ['fetch'] });
  assert.ok(compiled.ok);
  if (compiled.ok) {
    assert.equal(compiled.warnings, [{ message: 'Hog function `mystery` is not implemented', line: 2, column: 1 }]);
  }
});

for (const s of [constants, names, assignments, flow, functions, others, diagnostics]) s.run();
