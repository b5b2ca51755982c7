// Templates answered without the VM (src/hog/direct-read.ts): a constant string or one read
// of a global gives what the VM gives for it, on values of every shape; anything else is
// left to the VM.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileTemplateInputs, evaluateInputs, execute, initHog, NOT_DIRECT, readDirect } from '../../src/hog/index.js';

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

s.run();
