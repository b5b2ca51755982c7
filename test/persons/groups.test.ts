import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { groupIdentifyFields, resolveGroupType, upsertGroup } from '../../src/persons/groups.js';
import type { GroupTypeRecord } from '../../src/persons/tables.js';

const TS = '2026-01-10T12:00:00.000Z';
const s = suite('groups');

s('group types get indexes 0 to 4 in order of first appearance; a sixth is refused', () => {
  let mapping: GroupTypeRecord[] = [];
  for (const [i, type] of ['company', 'team', 'project', 'org', 'workspace'].entries()) {
    const r = resolveGroupType(mapping, type, TS);
    assert.equal(r, { index: i, added: { group_type: type, group_type_index: i, created_at: TS, name_singular: null, name_plural: null } });
    mapping = [...mapping, r!.added!];
  }
  assert.equal(resolveGroupType(mapping, 'team', TS), { index: 1, added: null });
  assert.is(resolveGroupType(mapping, 'sixth', TS), null);
});

s('a new type takes the lowest free index', () => {
  const mapping: GroupTypeRecord[] = [{ group_type: 'b', group_type_index: 1, created_at: TS, name_singular: null, name_plural: null }];
  assert.is(resolveGroupType(mapping, 'a', TS)!.index, 0);
});

s('a group identify creates the group, then merges $group_set shallowly', () => {
  const g = upsertGroup(undefined, 0, { groupType: 'company', groupKey: 'acme', groupSet: { name: 'Acme', plan: { tier: 1 } } }, TS)!;
  assert.equal(g, { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', plan: { tier: 1 } }, created_at: TS });
  const g2 = upsertGroup(g, 0, { groupType: 'company', groupKey: 'acme', groupSet: { plan: { seats: 5 }, size: 10 } }, '2026-02-01T00:00:00.000Z')!;
  // Shallow: `plan` is replaced, not deep-merged; the group keeps its creation time.
  assert.equal(g2, { group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', plan: { seats: 5 }, size: 10 }, created_at: TS });
});

s('a group identify that changes nothing writes nothing', () => {
  const g = upsertGroup(undefined, 0, { groupType: 'c', groupKey: 'k', groupSet: { a: 1 } }, TS)!;
  assert.is(upsertGroup(g, 0, { groupType: 'c', groupKey: 'k', groupSet: { a: 1 } }, TS), null);
  assert.is(upsertGroup(g, 0, { groupType: 'c', groupKey: 'k', groupSet: {} }, TS), null);
});

s('a group identify needs a type and a key; keys are strings; $group_set must be an object', () => {
  assert.is(groupIdentifyFields({ $group_key: 'k' }), null);
  assert.is(groupIdentifyFields({ $group_type: 'c' }), null);
  assert.is(groupIdentifyFields({ $group_type: 'c', $group_key: '' }), null);
  assert.equal(groupIdentifyFields({ $group_type: 'c', $group_key: 42, $group_set: 'x' }), { groupType: 'c', groupKey: '42', groupSet: {} });
});

s.run();
