import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { normalizePersonEvent, type EventInput } from '../../src/persons/normalize.js';

const s = suite('person event normalization');
const ev = (event: string, properties: Record<string, unknown>): EventInput => ({ uuid: 'u-1', event, distinct_id: 'd', properties });

s('an ordinary event is processed with its person updates', () => {
  const n = normalizePersonEvent(ev('$pageview', { $set: { a: 1 } }));
  assert.equal(n, { kind: 'keep', processPerson: true, properties: { $set: { a: 1 } }, warnings: [] });
});

s('$process_person_profile: false keeps the event without a person and without person updates', () => {
  const n = normalizePersonEvent(ev('$pageview', { $process_person_profile: false, $set: { a: 1 }, $set_once: { b: 1 }, $unset: ['c'], x: 1 }));
  assert.equal(n, { kind: 'keep', processPerson: false, properties: { $process_person_profile: false, x: 1 }, warnings: [] });
});

s('$process_person_profile: false drops identify, alias, merge and group identify with a warning', () => {
  for (const event of ['$identify', '$create_alias', '$merge_dangerously', '$groupidentify']) {
    const n = normalizePersonEvent(ev(event, { $process_person_profile: false }));
    assert.equal(n, { kind: 'drop', warning: { type: 'invalid_event_when_process_person_profile_is_false', details: { eventUuid: 'u-1', event, distinctId: 'd' } } }, event);
  }
});

s('$process_person_profile: true is the default and is not kept', () => {
  const n = normalizePersonEvent(ev('e', { $process_person_profile: true, a: 1 }));
  assert.equal(n, { kind: 'keep', processPerson: true, properties: { a: 1 }, warnings: [] });
});

s('a non-boolean $process_person_profile is ignored with a warning', () => {
  const n = normalizePersonEvent(ev('e', { $process_person_profile: 'false' }));
  assert.is(n.kind, 'keep');
  if (n.kind !== 'keep') return;
  assert.ok(n.processPerson);
  assert.equal(n.properties, {});
  assert.equal(n.warnings.map((w) => w.type), ['invalid_process_person_profile']);
});

s('a group identify never updates the person who sent it', () => {
  const n = normalizePersonEvent(ev('$groupidentify', { $group_type: 'company', $group_key: 'acme', $set: { a: 1 }, $unset: ['b'] }));
  assert.equal(n, { kind: 'keep', processPerson: true, properties: { $group_type: 'company', $group_key: 'acme' }, warnings: [] });
});

s('a group key over 400 characters drops the group identify', () => {
  const long = 'k'.repeat(401);
  const n = normalizePersonEvent(ev('$groupidentify', { $group_type: 'company', $group_key: long }));
  assert.equal(n, { kind: 'drop', warning: { type: 'group_key_too_long', details: { eventUuid: 'u-1', event: '$groupidentify', distinctId: 'd', groupKey: long, groupKeyLength: 401, maxLength: 400 } } });
  assert.is(normalizePersonEvent(ev('$groupidentify', { $group_type: 'company', $group_key: 'k'.repeat(400) })).kind, 'keep');
  // The limit concerns group identify only.
  assert.is(normalizePersonEvent(ev('e', { $group_key: long })).kind, 'keep');
});

s('a merge naming a non-string other id is dropped with a warning', () => {
  const anon = normalizePersonEvent(ev('$identify', { $anon_distinct_id: { a: 1 } }));
  assert.equal(anon, { kind: 'drop', warning: { type: 'invalid_anon_distinct_id', details: { eventUuid: 'u-1', event: '$identify', distinctId: 'd', receivedType: 'object' } } });
  const alias = normalizePersonEvent(ev('$create_alias', { alias: [1] }));
  assert.is(alias.kind === 'drop' && alias.warning.type, 'invalid_alias');
  assert.is(normalizePersonEvent(ev('$identify', { $anon_distinct_id: null })).kind, 'keep');
});

s('person properties describing the device are lifted onto the person', () => {
  const n = normalizePersonEvent(ev('$pageview', { $browser: 'Firefox' }));
  assert.is(n.kind, 'keep');
  if (n.kind === 'keep') assert.equal(n.properties.$set_once, { $initial_browser: 'Firefox' });
});

s.run();
