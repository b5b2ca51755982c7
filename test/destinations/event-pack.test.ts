// An event's pack (src/destinations/runtime/steps.ts eventPack): the event context once,
// and each invocation's own source and inputs. Inputs that hold the event's shared globals
// by reference (the webhook's default body `{'event': '{event}', 'person': '{person}'}`)
// are packed without them and read back whole (./shared-globals.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compileTemplateInputs, evaluateInputsDirect, initHog } from '../../src/hog/index.js';
import { pack } from '../../src/destinations/runtime/bytes.js';
import { invocationGlobals, type EventContext } from '../../src/destinations/runtime/globals.js';
import { withoutShared, withShared } from '../../src/destinations/runtime/shared-globals.js';
import { eventPack, globalsOf, ownKey } from '../../src/destinations/runtime/steps.js';

const s = suite('destinations: an event\'s pack');
s.before(() => initHog());

const properties: Record<string, unknown> = { $current_url: 'https://example.com/pricing', $browser: 'Firefox', plan: 'pro' };
for (let i = 0; i < 40; i++) properties[`p${i}`] = `value ${i} `.repeat(4);
const ctx: EventContext = {
  project: { id: 1, name: 'Site', url: 'https://h.example/project/1' },
  event: { uuid: '0190a5c2-0000-7000-8000-000000000001', event: '$pageview', distinct_id: 'ann', properties, timestamp: '2026-11-29T03:00:00.000Z', elements_chain: '' },
  person: { id: '0190a5c2-0000-7000-8000-0000000000aa', properties: { email: 'ann@example.com', name: 'Ann' } },
  groups: { company: { index: 0, key: 'acme', properties: { size: 10 } } },
};

const FN = 'f0000000-0000-0000-0000-000000000001';
const own = (inputs: unknown) => ({ [ownKey(FN, -1)]: { source: { name: 'hook', url: 'u' }, inputs } });

s('the webhook\'s default body holds the event and person by reference: packed once, read back equal', () => {
  const globals = invocationGlobals(ctx);
  const compiled = compileTemplateInputs([{ key: 'url', type: 'string' }, { key: 'body', type: 'json' }], {
    url: { value: 'https://sink/x' }, body: { value: { event: '{event}', person: '{person}' } },
  });
  if (!compiled.ok) return assert.unreachable('the inputs compile');
  const inputs = evaluateInputsDirect(compiled.inputs, globals);
  if (inputs === null) return assert.unreachable('the inputs read globals only');
  assert.ok((inputs.body as { event: unknown }).event === globals.event, 'the template input is the global itself');
  const shared = eventPack(pack(ctx), own(inputs), globals);
  const whole = eventPack(pack(ctx), own(structuredClone(inputs)), globals);
  // The same globals from either pack; the one with references is much smaller.
  const read = globalsOf(shared, FN, -1);
  assert.equal(read, globalsOf(whole, FN, -1));
  assert.equal(read.inputs, inputs);
  assert.equal(read.event, globals.event);
  assert.ok(shared.length < whole.length * 0.7, `${shared.length} bytes against ${whole.length}`);
  // What was packed is unchanged: the live inputs still hold the globals.
  assert.ok((inputs.body as { event: unknown }).event === globals.event);
  assert.ok((inputs.body as { person: unknown }).person === globals.person);
});

s('nested and repeated references, in dicts and arrays, come back where they were', () => {
  const globals = invocationGlobals(ctx);
  const event = globals.event as { properties: unknown };
  const person = globals.person as { properties: unknown };
  const value = {
    url: 'https://sink/x',
    body: { props: event.properties, again: event.properties, list: [1, person.properties, { deep: [globals.project] }], groups: globals.groups },
    headers: { 'Content-Type': 'application/json' },
  };
  const split = withoutShared(value, globals);
  assert.ok(split !== null);
  assert.is(split.refs.length, 5);
  assert.equal(split.refs.map(([, g]) => g.join('.')).sort(), ['event.properties', 'event.properties', 'groups', 'person.properties', 'project']);
  // The skeleton holds none of them; the headers, which hold none, are the same object.
  assert.is((split.skeleton as typeof value).body.props, null);
  assert.ok((split.skeleton as typeof value).headers === value.headers);
  assert.ok(value.body.props === event.properties, 'the value itself is left as it was');
  const back = withShared(structuredClone(split.skeleton), split.refs, globals);
  assert.equal(back, value);
});

s('inputs with copies, not references, of the globals are packed as they are', () => {
  const globals = invocationGlobals(ctx);
  assert.is(withoutShared({ body: structuredClone(globals.event), n: 1, s: 'x' }, globals), null);
  assert.is(withoutShared({ a: null, b: [1, 2, 3] }, globals), null);
  // An event without a person: nothing of it to refer to, the rest still is.
  const anonymous = invocationGlobals({ ...ctx, person: null });
  const split = withoutShared({ e: anonymous.event, p: null }, anonymous);
  assert.equal(split?.refs, [[['e'], ['event']]]);
});

s('a pack made before references (tag 1) still reads', () => {
  const globals = invocationGlobals(ctx);
  const inputs = { body: { event: 'x' } };
  const bytes = eventPack(pack(ctx), own(inputs), globals);
  assert.is(bytes[0], 1);
  assert.equal(globalsOf(bytes, FN, -1).inputs, inputs);
});

s.run();
