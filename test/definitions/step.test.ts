// The definitions step of the event store's pass (src/definitions/step.ts) over a store of
// its own: what it writes, that a type once stored stays, that memory only spares reads and
// writes (a definition removed behind its back comes back once memory is forgotten), and
// that a pass whose transaction did not commit leaves nothing believed known.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createDefinitionsStep, type DefinitionsPass } from '../../src/definitions/index.js';
import type { Store } from '../../src/tables.js';
import type { CapturedEvent } from '../../src/log/types.js';
import { storePerTest } from '../helpers/temp-store.js';

const s = suite('definitions: the event store pass step');
let store: Store;
storePerTest(s, 'definitions-step', (opened) => { store = opened; });

const NOW = Date.UTC(2024, 5, 15, 10, 30);
const ev = (event: string, properties: Record<string, unknown>, project_id = 1) =>
  ({ uuid: 'u', event, distinct_id: 'd', project_id, timestamp: new Date(NOW).toISOString(), properties }) as unknown as CapturedEvent;

// One pass in one transaction, committed unless told otherwise.
async function pass(start: () => DefinitionsPass, events: CapturedEvent[], commit = true): Promise<void> {
  let p: DefinitionsPass | undefined;
  await store.root.transaction(() => {
    p = start();
    for (const e of events) p.see(e);
    p.finish();
  });
  if (commit) p!.committed();
}

const typeOf = (name: string, kind: 1 | 2 | 3 = 1, group = -1, project = 1) => store.propertyDefinitions.get([project, kind, group, name])?.property_type;

s('an event records its definition, its properties with their pairs, and its $set keys as person properties', async () => {
  const step = createDefinitionsStep(store, () => null, () => NOW);
  await pass(step, [ev('buy', { price: 9, note: null, $set: { age: 30 }, $set_once: { first: '2024-01-01' }, $groups: { c: 'x' }, '$feature/beta': true })]);
  assert.equal([typeOf('price'), typeOf('note'), typeOf('$feature/beta'), typeOf('$groups')], ['Numeric', null, 'String', undefined]);
  assert.equal([typeOf('age', 2), typeOf('first', 2)], ['Numeric', 'DateTime']);
  assert.is(store.eventProperties.get([1, 'price', 'buy']), 1);
  // Feature flag keys get a definition but no pair.
  assert.is(store.eventProperties.get([1, '$feature/beta', 'buy']), undefined);
  const def = store.eventDefinitions.get([1, 'buy'])!;
  assert.equal([def.name, def.created_at, def.last_seen_at], ['buy', new Date(NOW).toISOString(), new Date(NOW).toISOString()]);
  assert.equal(store.definitionIds.get([1, def.id]), ['event', 'buy']);
});

s('a stored type stays whatever comes later; an untyped one takes the first type seen', async () => {
  const step = createDefinitionsStep(store, () => null, () => NOW, 0);
  await pass(step, [ev('buy', { price: 9, note: null })]);
  // maxKnown 0: every pass starts from nothing known and reads the store again.
  await pass(step, [ev('buy', { price: 'nine', note: 'hello' })]);
  assert.equal([typeOf('price'), typeOf('note')], ['Numeric', 'String']);
});

s('what memory knows is neither read nor written again in the hour; forgotten, a removed definition is written anew', async () => {
  let now = NOW;
  const step = createDefinitionsStep(store, () => null, () => now);
  await pass(step, [ev('buy', { price: 9 })]);
  store.propertyDefinitions.removeSync([1, 1, -1, 'price']);
  await pass(step, [ev('buy', { price: 9 })]);
  assert.is(typeOf('price'), undefined);
  // A pass that did not commit makes the next one forget: it reads, and writes what is missing.
  await pass(step, [ev('other', {})], false);
  await pass(step, [ev('buy', { price: 9 })]);
  assert.is(typeOf('price'), 'Numeric');
  // An hour later last_seen_at moves; created_at stays.
  now = NOW + 3_600_000;
  await pass(step, [ev('buy', {})]);
  const def = store.eventDefinitions.get([1, 'buy'])!;
  assert.equal([def.created_at, def.last_seen_at], [new Date(NOW).toISOString(), new Date(now).toISOString()]);
});

s('$groupidentify defines its group type\'s properties only (resolved at the end of the pass); projects apart', async () => {
  const step = createDefinitionsStep(store, (project, type) => (project === 2 && type === 'company' ? 3 : null), () => NOW);
  await pass(step, [
    ev('$groupidentify', { $group_type: 'company', $group_key: 'acme', $group_set: { employees: 50 } }, 2),
    ev('$groupidentify', { $group_type: 'unknown', $group_key: 'x', $group_set: { size: 1 } }, 2),
  ]);
  assert.is(typeOf('employees', 3, 3, 2), 'Numeric');
  assert.is(typeOf('$group_type', 1, -1, 2), undefined);
  assert.equal([...store.propertyDefinitions.getRange({})].map((e) => e.value.name), ['employees']);
  assert.is(typeOf('employees', 3, 3, 1), undefined);
});

s('an event that would make more than 10,000 updates is skipped whole, as PostHog skips it; a smaller one is recorded', async () => {
  const step = createDefinitionsStep(store, () => null, () => NOW);
  const wide: Record<string, number> = {};
  for (let i = 0; i < 5_000; i++) wide[`k${i}`] = i;
  // 1 + 2 × 5,000 event properties: over.
  await pass(step, [ev('wide', { ...wide })]);
  assert.is(store.eventDefinitions.get([1, 'wide']), undefined);
  assert.is(typeOf('k0'), undefined);
  // 1 + 2 × 2 + 5,000 person keys: under.
  await pass(step, [ev('narrow', { a: 1, $set: wide })]);
  assert.equal([typeOf('a'), typeOf('k4999', 2)], ['Numeric', 'Numeric']);
});

s.run();
