// Templates answered without the VM (src/hog/direct-read.ts): a constant string or one read
// of a global gives what the VM gives for it, on values of every shape; anything else is
// left to the VM.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileProgram, compileTemplateInputs, evaluateInputs, execute, initHog, NOT_DIRECT, readDirect, runSlice } from '../../src/hog/index.js';
import { exec, type ExecOptions } from '../../src/hog/vm.js';
import { straightSlice } from '../../src/hog/straight-slice.js';
import { copyHeap, vmCost } from '../../src/hog/allocation.js';
import { TEMPLATES } from '../../src/destinations/templates/index.js';

const s = suite('hog direct reads');
s.before(() => initHog());

const globals: Record<string, unknown> = {
  event: {
    uuid: 'u-1', event: '$pageview', distinct_id: 'd-1',
    properties: {
      $current_url: 'https://example.com/pricing', n: 3, f: 1.5, yes: true, none: null, empty: '', list: [1, 'two', { three: 3 }, null],
      nested: { a: { b: { c: 'deep' } } }, 'with space': 'spaced', $set_once: { $initial_os: 'Mac OS X' },
    },
    timestamp: '2026-11-27T10:00:00.000Z', elements_chain: '', url: 'http://localhost/project/1/events/u-1/2026',
  },
  person: { id: 'p-1', properties: { email: 'ann@example.com', plan: null }, name: 'ann@example.com', url: 'http://localhost/person/d-1' },
  groups: {},
  project: { id: 1, name: 'Default', url: 'http://localhost/project/1' },
  source: { name: 'hook', url: 'http://localhost/project/1/functions/f' },
  inputs: { url: 'https://hook.example.com' },
};

const compiled = (template: string) => {
  const result = compileTemplateInputs([{ key: 'k', type: 'string' }], { k: { value: template } });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.inputs.k.bytecode as unknown[];
};

const direct = [
  'https://example.com/static', '{event}', '{person}', '{groups}', '{project}', '{source}', '{inputs}', '{inputs.url}',
  '{event.uuid}', '{event.properties}', '{event.properties.$current_url}', '{event.properties.n}', '{event.properties.f}',
  '{event.properties.yes}', '{event.properties.none}', '{event.properties.empty}', '{event.properties.list}',
  '{event.properties.nested.a.b.c}', '{event.properties.nested.a.missing.c}', '{event.properties.missing}',
  '{event.properties.$current_url.length}', '{event.properties.$set_once.$initial_os}', '{person.properties.email}',
  '{person.properties.plan}', '{person.properties.plan.deeper}', '{groups.company}', '{groups.company.properties.name}',
];
const viaVm = ['{event.properties.list.1}', 'v={event.properties.n}', "{f'{event.uuid}-x'}", '{1 + 2}', '{nosuch}', '{nosuch.x}', '{concat}'];

s('a constant or one read of a global gives the VM\'s answer', async () => {
  for (const template of direct) {
    const bytecode = compiled(template);
    const got = readDirect(bytecode, globals);
    assert.ok(got !== NOT_DIRECT, `${template} is read directly`);
    const vm = await execute(bytecode, globals);
    assert.is(vm.error, null, template);
    assert.equal(got, vm.result, template);
  }
});

s('anything else is left to the VM: array indexes, concatenation, expressions, names that are not globals', () => {
  for (const template of viaVm) assert.is(readDirect(compiled(template), globals), NOT_DIRECT, template);
  assert.is(readDirect(['_H', 1, 32, 'event', 1, 2], globals), NOT_DIRECT);
  assert.is(readDirect(['_h', 32, 'event', 1, 1], globals), NOT_DIRECT);
});

s('a function\'s inputs evaluate the same with reads answered directly and without', async () => {
  const result = compileTemplateInputs([
    { key: 'url', type: 'string' }, { key: 'body', type: 'json' }, { key: 'debug', type: 'boolean' },
  ], {
    url: { value: 'https://hook.example.com/{event.event}' },
    body: { value: { event: '{event}', person: '{person}', email: '{person.properties.email}', tags: ['a', '{event.uuid}'], n: 1 } },
    debug: { value: false },
  });
  assert.ok(result.ok);
  if (!result.ok) return;
  const evaluated = await evaluateInputs(result.inputs, globals);
  assert.equal(evaluated, {
    ok: true,
    inputs: {
      url: 'https://hook.example.com/$pageview',
      body: { event: globals.event, person: globals.person, email: 'ann@example.com', tags: ['a', 'u-1'], n: 1 },
      debug: false,
    },
  });
});

// The first slice of straight code up to an async call (src/hog/straight-slice.ts) against
// the VM's own run of it: the call, its arguments, the state to resume (stack, frame, ops,
// memory), and what leaves priced as the host prices it; then both states resumed alike.
const webhook = TEMPLATES.find((t) => t.id === 'template-webhook')!;
const programOf = async (code: string): Promise<unknown[] | null> => {
  const compiled = await compileProgram(code);
  return compiled.ok ? compiled.bytecode as unknown[] : null;
};
const straightGlobals = (inputs: Record<string, unknown>) => ({ ...globals, inputs });
const vmOptions = (g: Record<string, unknown>, extra: Partial<ExecOptions> = {}): ExecOptions => ({
  globals: g, functions: {}, asyncFunctions: { fetch: () => Promise.resolve(null) }, timeout: 5000, memoryLimit: 64 * 1024 * 1024, maxAsyncSteps: 5, ...extra,
});
const bodies: unknown[] = [
  { event: globals.event, person: globals.person },
  { a: [1, [2, [3, { b: 'é ✓ 𝄞' }]], null, true, 1.5], '': 'empty key', 10: 'integer key', z: undefined },
  'a plain string body', 42, null, [],
];

s('straight code up to fetch gives the VM\'s call, state and costs', async () => {
  const bytecode = (await programOf(webhook.code))!;
  for (const body of bodies) {
    for (const debug of [false, true]) {
      const g = straightGlobals({ url: 'https://hook.example.com/x', method: 'POST', headers: { 'Content-Type': 'application/json' }, body, debug });
      let priced: { vm: number; heap: number } | null = null;
      const got = straightSlice(bytecode, vmOptions(g), (cost) => { priced = cost; return true; });
      if (debug) {
        // print() is not straight: left to the VM.
        assert.is(got, null);
        continue;
      }
      const vm = exec(bytecode, vmOptions(g));
      assert.ok(got !== null, JSON.stringify(body));
      assert.is(vm.finished, false);
      assert.is(got.name, vm.asyncFunctionName);
      assert.equal(got.args, vm.asyncFunctionArgs);
      const { syncDuration: _a, ...ours } = got.state;
      const { syncDuration: _b, ...theirs } = vm.state!;
      assert.equal(ours, theirs);
      const leaving = [vm.state!.stack, vm.state!.upvalues, vm.asyncFunctionArgs];
      assert.equal(priced, { vm: vmCost(leaving, Infinity), heap: copyHeap(leaving, Infinity) });
      for (const status of [200, 500]) {
        const resumedOurs = runSlice({ ...got.state, stack: [...got.state.stack, { status, body: 'ok' }] }, g, { fetch: () => Promise.resolve({ status: 0, body: null }) });
        const resumedVm = runSlice({ ...vm.state!, stack: [...vm.state!.stack, { status, body: 'ok' }] }, g, { fetch: () => Promise.resolve({ status: 0, body: null }) });
        assert.equal({ ...resumedOurs, timings: [] }, { ...resumedVm, timings: [] });
      }
    }
  }
});

s('anything the VM would answer otherwise is left to it', async () => {
  const bytecode = (await programOf(webhook.code))!;
  const inputs = { url: 'u', method: 'POST', headers: {}, debug: false };
  const left = (g: Record<string, unknown>, extra: Partial<ExecOptions> = {}) => straightSlice(bytecode, vmOptions(g, extra), () => true);
  assert.ok(left(straightGlobals({ ...inputs, body: { ok: 1 } })) !== null);
  // Values converted otherwise: a Map, a class instance, a date marker, a hole, a cycle.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const holes = [1, , 3]; // eslint-disable-line no-sparse-arrays
  for (const body of [new Map([['a', 1]]), new Date(0), { __hogDateTime__: true, dt: 0, zone: 'UTC' }, holes, cyclic]) {
    assert.is(left(straightGlobals({ ...inputs, body })), null);
  }
  // Past the memory limit (the VM's error), no async steps left, fetch not declared, inputs not a global.
  assert.is(left(straightGlobals({ ...inputs, body: 'x'.repeat(2000) }), { memoryLimit: 1000 }), null);
  assert.is(left(straightGlobals({ ...inputs, body: 1 }), { maxAsyncSteps: 0 }), null);
  assert.is(left(straightGlobals({ ...inputs, body: 1 }), { asyncFunctions: {} }), null);
  assert.is(left({ event: globals.event }), null);
  // What may not leave the VM: the VM's path reports it.
  assert.is(straightSlice(bytecode, vmOptions(straightGlobals({ ...inputs, body: 1 })), () => false), null);
  const report = runSlice(bytecode, straightGlobals({ ...inputs, body: 'x'.repeat(2000) }), { fetch: () => Promise.resolve({ status: 200, body: null }), memoryLimit: 1000 });
  assert.match(report.error?.message ?? '', /Memory limit of 1000 bytes exceeded/);
});

// Events of several shapes for the catalogue: fields missing, nulls, nesting, long strings.
const eventsOfShapes: Record<string, unknown>[] = [
  globals,
  { ...globals, event: { uuid: 'u-2', event: 'signed up', distinct_id: 'd-2', properties: {}, timestamp: '2026-11-27T10:00:00.000Z', elements_chain: '', url: 'u' }, person: null },
  {
    ...globals,
    event: { ...(globals.event as object), properties: { $current_url: null, email: null, price: null, $set: { email: null }, nested: { a: { b: [1, { c: null }] } } } },
    person: { id: 'p-3', properties: { email: null, phone: null, name: null }, name: null, url: 'u' },
  },
  {
    ...globals,
    event: { ...(globals.event as object), event: '$identify', properties: { email: 'x'.repeat(5000), $set: { email: 'é ✓ 𝄞'.repeat(300), name: 'n' }, revenue: 12.5, currency: 'EUR' } },
    person: { id: 'p-4', properties: { email: 'long@example.com', phone: '+33 6 00 00 00 00', first_name: 'A', last_name: 'B' }, name: 'A B', url: 'u' },
  },
];

// Resumes both states with a response and returns what each run reports, without its timings.
const resumed = (a: ExecOptions['globals'], stateA: unknown, stateB: unknown, status: number) => {
  const fetch = () => Promise.resolve({ status: 0, body: null });
  const ours = runSlice({ ...(stateA as { stack: unknown[] }), stack: [...(stateA as { stack: unknown[] }).stack, { status, body: { ok: true } }] } as never, a!, { fetch });
  const theirs = runSlice({ ...(stateB as { stack: unknown[] }), stack: [...(stateB as { stack: unknown[] }).stack, { status, body: { ok: true } }] } as never, a!, { fetch });
  return [{ ...ours, timings: [] }, { ...theirs, timings: [] }];
};

s('every catalogue template whose first slice is straight is answered as the VM answers it, on events of every shape', async () => {
  const answered = new Set<string>();
  let compared = 0;
  for (const template of TEMPLATES) {
    if (template.type !== 'destination') continue;
    const bytecode = await programOf(template.code);
    if (!bytecode) continue;
    const defaults = Object.fromEntries((template.inputs_schema ?? []).map((i) => [i.key, i.default ?? `${i.key}-value`]));
    const inputsOfShapes = [defaults, Object.fromEntries(Object.keys(defaults).map((k) => [k, null])), { ...defaults, ...Object.fromEntries(Object.keys(defaults).map((k) => [k, ''])) }];
    for (const base of eventsOfShapes) {
      for (const inputs of inputsOfShapes) {
        const g = { ...base, inputs };
        let priced: { vm: number; heap: number } | null = null;
        const got = straightSlice(bytecode, vmOptions(g), (cost) => { priced = cost; return true; });
        if (got === null) continue;
        answered.add(template.id);
        compared++;
        const vm = exec(bytecode, vmOptions(g));
        const where = `${template.id} on ${JSON.stringify(inputs).slice(0, 80)}`;
        assert.is(vm.finished, false, where);
        assert.is(got.name, vm.asyncFunctionName, where);
        assert.equal(got.args, vm.asyncFunctionArgs, where);
        assert.equal({ ...got.state, syncDuration: 0 }, { ...vm.state!, syncDuration: 0 }, where);
        const leaving = [vm.state!.stack, vm.state!.upvalues, vm.asyncFunctionArgs];
        assert.equal(priced, { vm: vmCost(leaving, Infinity), heap: copyHeap(leaving, Infinity) }, where);
        for (const status of [200, 500]) {
          const [ours, theirs] = resumed(g, got.state, vm.state, status);
          assert.equal(ours, theirs, `${where} resumed with ${status}`);
        }
      }
    }
  }
  // Before the checks were answered: webhook and slack-webhook only.
  assert.ok(answered.size >= 6, `${answered.size} templates answered straight: ${[...answered].join(', ')}`);
  assert.ok(compared > answered.size);
});

// Small programs over each op the slice answers: straight, and the VM's answer.
const straightPrograms = [
  "let a := inputs.url; let b := null; if (not empty(a) and notEmpty(a)) { b := concat(a, '/x', null) } fetch(b, {'method': 'POST'})",
  "let p := event.properties; let e := p.email ?? p.$set.email; fetch(inputs.url, {'body': {'e': e, 'n': p.list[3].three, 'last': p.list[-1], 'deep': p.nested.a.b.c, 'miss': p.nope.deeper}})",
  "if (inputs.url == 'https://hook.example.com' or false) { fetch(inputs.url, {'body': [1, 2.5, true, false, null, [inputs.url]]}) } else { fetch('other') }",
  "let n := 3; if (n != 4 and not (inputs.url = null)) { fetch(inputs.url, {'body': {'n': n, 'empty': empty({}), 'list': empty([]), 'zero': empty(0), 's': empty('')}}) }",
  "let x := inputs.missing ?? 'fallback'; let y := 1; y := 2; fetch(x, {'y': y})",
  "if (startsWith(inputs.url, 'https://') and not startsWith(null, 'h') and length(inputs.url) != 0) { fetch(inputs.url, {'n': length([1, 2]), 'e': length('')}) }",
];
// And programs the VM answers otherwise, or whose answer is an error: left to it.
const refusedPrograms = [
  "let a := {'x': 1}; if (a == {'x': 1}) { fetch('u') }", // dicts compare as Maps in the VM
  "let i := 0; let a := [1, 2]; fetch(a[i])", // index 0: the VM's error
  "fetch(concat('a', 1))", // a number printed by the VM's printer
  "let a := [1, 2]; fetch(a.length)", // a string key on an array
  "let i := 0; while (i < 3) { i := i + 1 } fetch('u')", // a loop
  "if (empty(1, 2)) { fetch('u') }", // empty's arity
  "fetch(lower('A'))", // an STL function not answered here
  "fetch(length(inputs))", // a dict has no length in the VM
  "let d := {'1': 'one'}; fetch(d[1])", // a number key on a dict (a Map in the VM)
];

s('each op the slice answers gives the VM\'s answer; its edges are left to the VM', async () => {
  const g = straightGlobals({ url: 'https://hook.example.com', missing: null });
  const long = straightGlobals({ url: 'x'.repeat(200_000) });
  for (const code of straightPrograms) {
    const bytecode = (await programOf(code))!;
    assert.ok(bytecode, code);
    let priced: { vm: number; heap: number } | null = null;
    const got = straightSlice(bytecode, vmOptions(g), (cost) => { priced = cost; return true; });
    assert.ok(got !== null, code);
    const vm = exec(bytecode, vmOptions(g));
    assert.is(got.name, vm.asyncFunctionName, code);
    assert.equal(got.args, vm.asyncFunctionArgs, code);
    assert.equal({ ...got.state, syncDuration: 0 }, { ...vm.state!, syncDuration: 0 }, code);
    const leaving = [vm.state!.stack, vm.state!.upvalues, vm.asyncFunctionArgs];
    assert.equal(priced, { vm: vmCost(leaving, Infinity), heap: copyHeap(leaving, Infinity) }, code);
  }
  for (const code of refusedPrograms) {
    const bytecode = (await programOf(code))!;
    assert.ok(bytecode, code);
    assert.is(straightSlice(bytecode, vmOptions(g), () => true), null, code);
    assert.is(straightSlice(bytecode, vmOptions(long), () => true), null, code);
  }
  // A built value past the memory limit is the VM's error.
  const big = (await programOf("fetch('u', [inputs.url, inputs.url, inputs.url])"))!;
  const small = vmOptions(straightGlobals({ url: 'x'.repeat(400) }), { memoryLimit: 1000 });
  assert.is(straightSlice(big, small, () => true), null);
  assert.match(String(exec(big, small).error ?? ''), /Memory limit of 1000 bytes exceeded/);
  // A concat past the checked concat's bound (./checked-stl.ts looks at the heap): the VM's.
  const twice = (await programOf("fetch(concat(inputs.url, inputs.url))"))!;
  assert.ok(straightSlice(twice, vmOptions(g), () => true) !== null);
  assert.is(straightSlice(twice, vmOptions(long), () => true), null);
  // A pure function the host declares is the host's.
  const own = (await programOf("fetch(concat('a', 'b'))"))!;
  assert.is(straightSlice(own, vmOptions(g, { functions: { concat: () => 'host' } }), () => true), null);
  assert.ok(straightSlice(own, vmOptions(g), () => true) !== null);
});

s.run();
