// Straight code past a program's first slice (src/hog/straight-slice.ts): a suspended
// program resumed with its async call's value and run to its end, and a whole program (a
// filter's expression), against @posthog/hogvm's own run of the same bytecode: the same
// result, ops and memory figures where straight code answers; null (the VM's turn) for
// anything else, before any effect.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileFilters, compileProgram, initHog, runSlice, runStraight } from '../../src/hog/index.js';
import { convertHogToJS, exec, type ExecOptions, type VMState } from '../../src/hog/vm.js';
import { straightProgram, straightResume, straightSlice } from '../../src/hog/straight-slice.js';
import { TEMPLATES } from '../../src/destinations/templates/index.js';

const s = suite('hog straight code to the end');
s.before(() => initHog());

const globals = (inputs: Record<string, unknown>): Record<string, unknown> => ({
  event: { uuid: 'u-1', event: '$pageview', distinct_id: 'd-1', properties: { $current_url: 'https://example.com/pricing', plan: 'pro', n: 3 }, timestamp: '2026-11-27T10:00:00.000Z', elements_chain: '', url: 'http://localhost/e' },
  person: { id: 'p-1', properties: { email: 'ann@example.com' }, name: 'ann', url: 'http://localhost/p' },
  groups: {}, project: { id: 1, name: 'Default', url: 'http://localhost/project/1' }, source: { name: 'hook', url: 'http://localhost/f' },
  inputs,
});
const vmOptions = (g: Record<string, unknown>): ExecOptions => ({
  globals: g, functions: { postHogCapture: () => null }, asyncFunctions: { fetch: () => Promise.resolve(null) }, timeout: 550, memoryLimit: 64 * 1024 * 1024, maxAsyncSteps: 5,
});
const program = async (code: string) => {
  const compiled = await compileProgram(code);
  if (!compiled.ok) throw new Error(JSON.stringify(compiled));
  return compiled.bytecode as unknown[];
};
const responses: unknown[] = [
  { status: 200, body: { ok: true } }, { status: 201, body: 'created' }, { status: 204, body: null }, { status: 299, body: [1, { a: [null] }] },
  { status: 300, body: {} }, { status: 404, body: 'missing' }, { status: 500, body: { error: 'é ✓ 𝄞' } }, { status: '200', body: null }, null,
];

// The VM's run of a state resumed with `value`: its result (as plain JS), ops and memory, or null when it does not end cleanly here.
function vmResume(state: VMState, value: unknown, g: Record<string, unknown>) {
  const run = exec({ ...structuredClone(state), stack: [...structuredClone(state.stack), value] } as VMState, vmOptions(g));
  if (!run.finished) return { finished: false };
  return { finished: true, result: convertHogToJS(run.result ?? null), ops: run.state!.ops, maxMemUsed: run.state!.maxMemUsed };
}

s('a resumed program that straight code runs to its end gives the VM\'s result, ops and memory; the rest is left to the VM', async () => {
  const codes: Record<string, string> = {
    returns: "let r := fetch(inputs.url, {'body': {'n': 1}}); return r.status",
    compares: "let r := fetch(inputs.url, {}); if (r.status > 299 or r.status < 200) { return false }; if (r.status <= 204 and r.status >= 200) { return r.body } return {'s': r.status, 'b': [r.body, inputs.url]}",
    prints: "let r := fetch(inputs.url, {}); print(r.status)",
    'fetches again': "let r := fetch(inputs.url, {}); let q := fetch(inputs.url, {}); return q.status",
  };
  for (const template of TEMPLATES) if (template.type === 'destination') codes[template.id] = template.code;
  let compared = 0;
  let left = 0;
  for (const [name, code] of Object.entries(codes)) {
    let bytecode: unknown[];
    try {
      bytecode = await program(code);
    } catch {
      continue;
    }
    for (const debug of [false, true]) {
      const g = globals({ url: 'https://hook.example.com', method: 'POST', headers: {}, body: { a: 1 }, debug });
      const first = straightSlice(bytecode, vmOptions(g), () => true);
      if (first === null) continue;
      for (const value of responses) {
        const before = structuredClone(first.state);
        const ours = straightResume(first.state, value, vmOptions(g), () => true);
        assert.equal(first.state, before, 'the state is not changed');
        const theirs = vmResume(first.state, value, g);
        if (ours === null) {
          left++;
          continue;
        }
        compared++;
        assert.ok(theirs.finished, `${name}: the VM ends too`);
        assert.equal({ result: ours.result, ops: ours.ops, maxMemUsed: ours.maxMemUsed }, { result: theirs.result, ops: theirs.ops, maxMemUsed: theirs.maxMemUsed }, `${name} (debug ${debug}) with ${JSON.stringify(value)}`);
      }
    }
  }
  assert.ok(compared >= 15, `compared ${compared}`);
  assert.ok(left >= 10, `left to the VM ${left}`);
  // The webhook: a success ends here; a failing status throws, print() logs: the VM's.
  const webhook = await program(TEMPLATES.find((t) => t.id === 'template-webhook')!.code);
  const g = globals({ url: 'u', method: 'POST', headers: {}, body: {}, debug: false });
  const state = straightSlice(webhook, vmOptions(g), () => true)!.state;
  assert.ok(straightResume(state, { status: 200, body: {} }, vmOptions(g), () => true) !== null);
  assert.is(straightResume(state, { status: 500, body: {} }, vmOptions(g), () => true), null);
  assert.is(straightResume(state, { status: 200, body: {} }, vmOptions(globals({ debug: true })), () => true), null);
  // A result that may not leave the VM, and a state that is not a root frame alone.
  assert.is(straightResume(state, { status: 200, body: {} }, vmOptions(g), () => false), null);
  assert.is(straightResume({ ...state, upvalues: [{}] } as never, { status: 200, body: {} }, vmOptions(g), () => true), null);
  assert.is(straightResume({ ...state, callStack: [...state.callStack, ...state.callStack] }, { status: 200, body: {} }, vmOptions(g), () => true), null);
  // runStraight reports as runSlice does, and leaves the state as it was.
  const report = runStraight({ state, value: { status: 200, body: {} } }, g, { fetch: () => Promise.resolve({ status: 0, body: null }), timeoutMs: 550 })!;
  const vm = runSlice({ ...structuredClone(state), stack: [...state.stack, { status: 200, body: {} }] }, g, { fetch: () => Promise.resolve({ status: 0, body: null }), timeoutMs: 550 });
  assert.equal({ ...report, timings: report.timings.map((t) => t.kind) }, { ...vm, timings: vm.timings.map((t) => t.kind) });
});

s('a filter\'s expression that straight code answers gives the VM\'s result; the rest is left to the VM', async () => {
  const specs = [
    { events: [{ id: '$pageview', type: 'events' }] },
    { events: [{ id: '$pageview', type: 'events' }, { id: 'signed up', type: 'events' }] },
    { events: [{ id: '$pageview', type: 'events' }], properties: [{ key: 'plan', value: 'pro', operator: 'exact', type: 'event' }] },
    { events: [{ id: '$pageview', type: 'events' }], properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'event' }] },
    { events: [{ id: '$pageview', type: 'events' }], properties: [{ key: 'plan', value: 'free', operator: 'is_not', type: 'event' }] },
    { events: [{ id: '$pageview', type: 'events' }], properties: [{ key: 'plan', operator: 'is_set', type: 'event' }] },
    { events: [{ id: '$pageview', type: 'events', properties: [{ key: '$current_url', value: '/pricing', operator: 'icontains', type: 'event' }] }] },
    { properties: [{ key: 'n', value: 2, operator: 'gt', type: 'event' }] },
    // LIKE patterns: regex characters kept literally, % and _ as LIKE's.
    { properties: [{ key: 'u', value: 'a.b_c(1)', operator: 'icontains', type: 'event' }] },
    { properties: [{ key: 'u', value: 'A.B', operator: 'not_icontains', type: 'event' }] },
    { properties: [{ key: '$current_url', value: 'PRICING', operator: 'icontains', type: 'event' }, { key: 'u', value: '[x]', operator: 'not_icontains', type: 'event' }] },
  ];
  const filterGlobals = [
    { event: '$pageview', properties: { plan: 'pro', n: 3, $current_url: 'https://example.com/pricing' }, person: null, distinct_id: 'd' },
    { event: 'signed up', properties: { plan: 'free', n: 1 }, person: { id: 'p', properties: {} }, distinct_id: 'd' },
    { event: '$pageview', properties: {}, person: null, distinct_id: 'd' },
    { event: '$pageview', properties: { u: 'xxA.B_C(1)yy', $current_url: 'https://example.com/Pricing?x' }, person: null, distinct_id: 'd' },
    { event: '$pageview', properties: { u: 'aXbYc(1)', $current_url: 'https://example.com/' }, person: null, distinct_id: 'd' },
    { event: '$pageview', properties: { u: 'é [x] 𝄞 a.b', $current_url: 7 }, person: null, distinct_id: 'd' },
  ];
  let answered = 0;
  for (const spec of specs) {
    const compiled = compileFilters(spec as never, { actions: {}, cohorts: {}, testAccountFilters: [] } as never) as { bytecode?: unknown[] };
    if (!Array.isArray(compiled.bytecode)) continue;
    for (const g of filterGlobals) {
      const ours = straightProgram(compiled.bytecode, { globals: g }, () => true);
      if (ours === null) continue;
      answered++;
      const vm = exec(compiled.bytecode, { globals: g });
      assert.is(vm.finished, true);
      assert.equal({ result: ours.result, ops: ours.ops, maxMemUsed: ours.maxMemUsed }, { result: convertHogToJS(vm.result ?? null), ops: vm.state!.ops, maxMemUsed: vm.state!.maxMemUsed }, JSON.stringify(spec));
    }
  }
  assert.ok(answered >= 20, `answered ${answered}`);
  // A program that calls an async function does not end here.
  assert.is(straightProgram(await program("fetch('u', {})"), { globals: {}, asyncFunctions: { fetch: () => Promise.resolve(null) } }, () => true), null);
});

s.run();
