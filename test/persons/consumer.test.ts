// Person processing inside the event-store pass, against a real LMDB store: what gets
// stored, what a replay does, and that a failed transaction leaves nothing behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { applyEntries, eventStorePosition } from '../../src/events/consumer.js';
import type { EventPreparation } from '../../src/persons/step.js';
import { eventByUuid } from '../../src/events/query.js';
import type { CapturedEvent, LogEntry } from '../../src/log/types.js';
import { createPersonStep } from '../../src/persons/step.js';
import { personUuid } from '../../src/persons/person-uuid.js';
import {
  groupProperties, groupTypeMapping, hashKeyOverrides, personByDistinctId, personByUuid, personRecordByDistinctId, resolvePersonUuid,
} from '../../src/persons/store.js';
import { personOperationMaker, recordOf } from '../helpers/log-operations.js';
import { warningsSince } from '../../src/ingestion-warnings/store.js';
import { storePerTest } from '../helpers/temp-store.js';
import { eventMaker } from '../helpers/person-events.js';
import { PERSON_ROW_COPY_LIMIT, type PersonRecord } from '../../src/persons/tables.js';

const P = 1;
const NOW = Date.parse('2026-01-10T12:00:00.000Z');
let store: Store;
let seq = 0;
const ev = eventMaker(P, NOW);

const entry = (...events: CapturedEvent[]): LogEntry => ({ seq: ++seq, events });
// One step per test, as in the consumer: its person cache lives across transactions.
let step: () => EventPreparation;
const apply = (...entries: LogEntry[]) => applyEntries(store, entries, step);
const person = (distinctId: string) => personRecordByDistinctId(store, P, distinctId);

// Person deletions and flag hash keys as the log carries them: operations among the events.
const ops = personOperationMaker(P);
const deletePerson = (p: PersonRecord) => apply(recordOf(++seq, ops.deletePerson(p.uuid)));
const writeHashKeyOverrides = (distinctIds: string[], flagKeys: string[], hashKey: string) => apply(recordOf(++seq, ops.hashKeys(distinctIds, flagKeys, hashKey)));

const s = suite('person step in the event-store pass');
storePerTest(s, 'hedgerow-persons-', (opened) => {
  store = opened;
  step = createPersonStep(store, () => NOW);
  seq = 0;
});

s('every stored event carries the person it resolved to; merges are followed on read', async () => {
  const a = ev('$pageview', 'anon-1');
  const b = ev('$pageview', 'user-1');
  const c = ev('$identify', 'user-1', { $anon_distinct_id: 'anon-1' });
  await apply(entry(a, b), entry(c));
  const anonUuid = personUuid(P, 'anon-1');
  const userUuid = personUuid(P, 'user-1');
  assert.is(eventByUuid(store, P, a.uuid)!.person_id, anonUuid);
  assert.is(eventByUuid(store, P, c.uuid)!.person_id, userUuid);
  // The anonymous person was merged away: its events now resolve to the user's person.
  assert.is(personByUuid(store, P, anonUuid), undefined);
  assert.is(resolvePersonUuid(store, P, anonUuid), userUuid);
  assert.is(resolvePersonUuid(store, P, userUuid), userUuid);
});

s('every distinct id reads the whole person in one read, after merges too', async () => {
  await apply(entry(
    ev('e', 'anon-1', { $set: { utm: 'ad' } }),
    ev('e', 'user-1', { $set: { plan: 'pro' } }),
    ev('$identify', 'user-1', { $anon_distinct_id: 'anon-1', $set: { email: 'a@x' } }),
  ));
  for (const id of ['anon-1', 'user-1']) {
    const row = store.personDistinctIds.get([P, id]) as PersonRecord;
    assert.is(row.uuid, personUuid(P, 'user-1'));
    assert.is(row.id, 2);
    assert.equal(row.distinct_ids, ['user-1', 'anon-1']);
    assert.equal({ ...row.properties, $creator_event_uuid: undefined }, { utm: 'ad', plan: 'pro', email: 'a@x', $creator_event_uuid: undefined });
  }
  assert.equal(personByUuid(store, P, personUuid(P, 'user-1')), person('anon-1'));
  // What flag evaluation reads: one row.
  assert.equal(personByDistinctId(store, P, 'anon-1'), { person_uuid: personUuid(P, 'user-1'), person_id: 2, properties: person('anon-1')!.properties });
});

s('a person with many distinct ids is kept once and its rows refer to it', async () => {
  const ids = Array.from({ length: PERSON_ROW_COPY_LIMIT + 3 }, (_, i) => `device-${i}`);
  await apply(entry(ev('e', 'user', { $set: { n: 0 } }), ...ids.slice(0, PERSON_ROW_COPY_LIMIT - 1).map((d) => ev('$create_alias', 'user', { alias: d }))));
  assert.ok('uuid' in store.personDistinctIds.get([P, 'device-0'])!, 'still whole at the limit');
  await apply(entry(...ids.slice(PERSON_ROW_COPY_LIMIT - 1).map((d) => ev('$create_alias', 'user', { alias: d })), ev('e', 'device-3', { $set: { n: 1 } })));
  const uuid = personUuid(P, 'user');
  for (const d of ['user', ...ids]) {
    assert.equal(store.personDistinctIds.get([P, d]), { person_uuid: uuid }, d);
    const p = person(d)!;
    assert.is(p.properties.n, 1);
    assert.is(p.distinct_ids.length, ids.length + 1);
    assert.is(personByDistinctId(store, P, d)!.properties.n, 1);
  }
  await apply(entry(ev('e', 'device-9', { $set: { n: 2 } })));
  assert.is(personByUuid(store, P, uuid)!.properties.n, 2);
  await deletePerson(personByUuid(store, P, uuid)!);
  assert.is(personByDistinctId(store, P, 'device-5'), undefined);
});

s('later events of one batch see the changes of earlier ones', async () => {
  await apply(entry(
    ev('e', 'u', { $set: { n: 1 } }),
    ev('e', 'u', { $set: { n: 2 }, $set_once: { first: 'a' } }),
    ev('e', 'u', { $set_once: { first: 'b' }, $unset: ['n'] }),
  ));
  const p = person('u')!;
  assert.equal({ ...p.properties, $creator_event_uuid: undefined }, { first: 'a', $creator_event_uuid: undefined });
  assert.is(p.id, 1);
});

s('numeric person ids follow creation order and continue across batches', async () => {
  await apply(entry(ev('e', 'a'), ev('e', 'b')));
  await apply(entry(ev('e', 'c')));
  assert.equal(['a', 'b', 'c'].map((d) => person(d)!.id), [1, 2, 3]);
});

s('a resent event (same uuid) is not applied twice', async () => {
  const first = ev('e', 'u', { $set: { v: 1 } });
  await apply(entry(first, ev('e', 'u', { $set: { v: 2 } })));
  await apply(entry({ ...first, properties: { $set: { v: 1 } } }));
  assert.is(person('u')!.properties.v, 2);
});

s('a resent event changes nothing, in the same batch or a later one: no $set, no merge, no warning, no group update', async () => {
  const oldSet = ev('e', 'u', { $set: { plan: 'free' } });
  const merge = ev('$identify', 'u', { $anon_distinct_id: 'anon' });
  const dropped = ev('$identify', 'x', { $process_person_profile: false });
  const group = ev('$groupidentify', 'g', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 1 } });
  await apply(entry(ev('e', 'anon'), oldSet, merge, ev('e', 'u', { $set: { plan: 'pro' } }), { ...oldSet, properties: { $set: { plan: 'free' } } }, dropped, group));
  await apply(entry(ev('$groupidentify', 'g', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 2 } })));
  // Resent later: each as SDKs resend, the same uuid and body.
  await apply(entry(
    { ...oldSet, properties: { $set: { plan: 'free' } } }, { ...merge, properties: { $anon_distinct_id: 'anon' } },
    { ...dropped, properties: { $process_person_profile: false } }, { ...group, properties: { $group_type: 'company', $group_key: 'acme', $group_set: { size: 1 } } },
  ));
  assert.is(person('u')!.properties.plan, 'pro');
  assert.equal(person('anon')!.distinct_ids, ['u', 'anon']);
  assert.equal(groupProperties(store, P, 0, 'acme'), { size: 2 });
  assert.equal(warningsSince(store, P, 0).map((w) => w.type), ['invalid_event_when_process_person_profile_is_false']);
});

for (const when of ['while events are prepared', 'after the step wrote its changes'] as const) {
  s(`a transaction that fails ${when} applies nothing; the retry, by the same step, applies everything once`, async () => {
    // A known person first, so the failed batch changes a cached person too.
    await apply(entry(ev('e', 'b', { $set: { y: 1 } })));
    const events = [ev('e', 'a', { $set: { x: 1 } }), ev('$identify', 'b', { $anon_distinct_id: 'a' }), ev('$groupidentify', 'c', { $group_type: 'company', $group_key: 'acme', $group_set: { n: 1 } })];
    const e = entry(...events);
    let calls = 0;
    const dying = (): EventPreparation => {
      const inner = step();
      return when === 'while events are prepared'
        ? { prepare: (x) => { if (++calls === 3) throw new Error('killed'); return inner.prepare(x); }, commit: () => inner.commit(), personProperties: () => inner.personProperties(), operate: (op) => inner.operate(op), finish: () => inner.finish() }
        : { prepare: (x) => inner.prepare(x), commit: () => inner.commit(), personProperties: () => inner.personProperties(), operate: (op) => inner.operate(op), finish: () => { inner.finish(); throw new Error('killed'); } };
    };
    await applyEntries(store, [e], dying).then(() => assert.unreachable('should fail'), (err: Error) => assert.is(err.message, 'killed'));
    assert.is(eventStorePosition(store), 1);
    assert.is(person('a'), undefined);
    assert.equal(person('b')!.distinct_ids, ['b']);
    assert.is(eventByUuid(store, P, events[0].uuid), undefined);
    assert.equal(groupTypeMapping(store, P), []);
    assert.is(store.personSeq.get(P), 1);

    await apply(e);
    assert.is(eventStorePosition(store), e.seq);
    const b = person('a')!;
    assert.is(b.uuid, personUuid(P, 'b'));
    assert.equal(b.distinct_ids, ['b', 'a']);
    assert.equal([b.id, b.properties.x, b.properties.y], [1, 1, 1]);
    assert.is(person('c')!.id, 3);
    assert.equal(groupProperties(store, P, 0, 'acme'), { n: 1 });
  });
}

s('a deletion through the API is seen by the next transaction, whatever the step cached', async () => {
  await apply(entry(ev('e', 'u', { $set: { a: 1 } })));
  await deletePerson(person('u')!);
  await apply(entry(ev('e', 'u', { $set: { b: 1 } })));
  assert.equal({ ...person('u')!.properties, $creator_event_uuid: 0 }, { b: 1, $creator_event_uuid: 0 });
});

s('dropped events are not stored, and the reason is recorded as an ingestion warning', async () => {
  const dropped = ev('$identify', 'u', { $process_person_profile: false });
  await apply(entry(dropped));
  assert.is(eventByUuid(store, P, dropped.uuid), undefined);
  assert.is(person('u'), undefined);
  const warnings = warningsSince(store, P, 0);
  assert.equal(warnings, [{
    type: 'invalid_event_when_process_person_profile_is_false',
    timestamp: new Date(NOW).toISOString(),
    details: { eventUuid: dropped.uuid, event: '$identify', distinctId: 'u', category: 'event', severity: 'error' },
  }]);
});

// Everything persons and groups are kept in, to show an event changed none of it.
const personsAndGroups = () => [store.persons, store.personDistinctIds, store.personIds, store.personRedirects, store.personSeq, store.groupTypes, store.groups]
  .map((db) => [...db.getRange()].map(({ key, value }) => [key, value]));

const PERSON_ONLY = [
  ['$create_alias', 'u', { alias: 'other', $set: { a: 2 } }],
  ['$merge_dangerously', 'u', { alias: 'other', $set: { a: 2 } }],
  ['$groupidentify', '$company_acme', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Changed' } }],
] as const;
for (const [event, distinctId, properties] of PERSON_ONLY) {
  s(`${event} with $process_person_profile: false is dropped with a warning, changing no person and no group`, async () => {
    await apply(entry(
      ev('e', 'u', { $set: { a: 1 } }),
      ev('e', 'other', { $set: { b: 1 } }),
      ev('$groupidentify', 'u', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } }),
    ));
    const before = personsAndGroups();
    const dropped = ev(event, distinctId, { ...properties, $process_person_profile: false });
    await apply(entry(dropped));
    assert.is(eventByUuid(store, P, dropped.uuid), undefined);
    assert.equal(personsAndGroups(), before);
    assert.equal(warningsSince(store, P, 0), [{
      type: 'invalid_event_when_process_person_profile_is_false',
      timestamp: new Date(NOW).toISOString(),
      details: { eventUuid: dropped.uuid, event, distinctId, category: 'event', severity: 'error' },
    }]);
  });
}

s('a person-less event\'s $set_once and $unset are neither stored nor applied to the person', async () => {
  await apply(entry(ev('e', 'u', { $set: { keep: 1 } })));
  const before = person('u');
  const personless = ev('e', 'u', { $process_person_profile: false, $set_once: { first: 'x' }, $unset: ['keep'] });
  await apply(entry(personless));
  const stored = eventByUuid(store, P, personless.uuid)!;
  assert.is(stored.person_id, null);
  assert.equal(stored.properties, { $process_person_profile: false });
  assert.equal(person('u'), before);
  assert.is(person('u')!.properties.keep, 1);
  assert.is(person('u')!.properties.first, undefined);
});

s('events with $process_person_profile: false are stored without a person and change no one', async () => {
  await apply(entry(ev('e', 'u', { $set: { a: 1 } })));
  const personless = ev('e', 'u', { $process_person_profile: false, $set: { a: 2 } });
  await apply(entry(personless));
  const stored = eventByUuid(store, P, personless.uuid)!;
  assert.is(stored.person_id, null);
  assert.equal(stored.properties, { $process_person_profile: false });
  assert.is(person('u')!.properties.a, 1);
});

s('$groups on an event is stored as $group_<index>, registering types but creating no group', async () => {
  const e = ev('e', 'u', { $groups: { company: 'acme', team: 't1' } });
  await apply(entry(e));
  assert.equal(eventByUuid(store, P, e.uuid)!.properties, { $groups: { company: 'acme', team: 't1' }, $group_0: 'acme', $group_1: 't1' });
  assert.equal(groupTypeMapping(store, P).map((t) => [t.group_type, t.group_type_index]), [['company', 0], ['team', 1]]);
  assert.is(groupProperties(store, P, 0, 'acme'), undefined);
});

s('$groupidentify creates and updates the group; a sixth group type is refused with one warning', async () => {
  await apply(entry(
    ev('$groupidentify', '$company_acme', { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } }),
    ev('$groupidentify', '$company_acme', { $group_type: 'company', $group_key: 'acme', $group_set: { size: 5 } }),
  ));
  assert.equal(groupProperties(store, P, 0, 'acme'), { name: 'Acme', size: 5 });
  await apply(entry(ev('e', 'u', { $groups: { t1: 'a', t2: 'b', t3: 'c', t4: 'd' } })));
  const sixth = ev('$groupidentify', 'u', { $group_type: 'sixth', $group_key: 'k', $group_set: { a: 1 } });
  await apply(entry(sixth, ev('e', 'u', { $groups: { sixth: 'k' } })));
  assert.is(groupTypeMapping(store, P).length, 5);
  // The event is kept; only the group is refused, and the warning is not repeated.
  assert.ok(eventByUuid(store, P, sixth.uuid));
  const warnings = warningsSince(store, P, 0);
  assert.equal(warnings.map((w) => [w.type, w.details.groupType]), [['group_type_limit_reached', 'sixth']]);
});

s('a $groupidentify whose $group_key is over 400 characters is dropped with a warning and creates no group', async () => {
  const tooLong = ev('$groupidentify', 'u', { $group_type: 'company', $group_key: 'k'.repeat(401), $group_set: { name: 'Acme' } });
  await apply(entry(tooLong));
  assert.is(eventByUuid(store, P, tooLong.uuid), undefined);
  assert.equal(groupTypeMapping(store, P), []);
  assert.is(person('u'), undefined);
  assert.equal(warningsSince(store, P, 0), [{
    type: 'group_key_too_long',
    timestamp: new Date(NOW).toISOString(),
    details: {
      eventUuid: tooLong.uuid, event: '$groupidentify', distinctId: 'u',
      groupKey: 'k'.repeat(401), groupKeyLength: 401, maxLength: 400, category: 'size', severity: 'error',
    },
  }]);
  // 400 characters is still a key.
  await apply(entry(ev('$groupidentify', 'u', { $group_type: 'company', $group_key: 'k'.repeat(400), $group_set: { name: 'Acme' } })));
  assert.equal(groupProperties(store, P, 0, 'k'.repeat(400)), { name: 'Acme' });
  assert.is(warningsSince(store, P, 0).length, 1);
});

s('flag hash key overrides follow a merge; the surviving person keeps its own', async () => {
  await apply(entry(ev('e', 'anon-1'), ev('e', 'user-1')));
  await writeHashKeyOverrides(['anon-1'], ['flag-a', 'flag-b'], 'anon-1');
  await writeHashKeyOverrides(['user-1'], ['flag-a'], 'user-1');
  await apply(entry(ev('$identify', 'user-1', { $anon_distinct_id: 'anon-1' })));
  assert.equal(hashKeyOverrides(store, P, personUuid(P, 'user-1')), { 'flag-a': 'user-1', 'flag-b': 'anon-1' });
  assert.equal(hashKeyOverrides(store, P, personUuid(P, 'anon-1')), {});
});

s('a deleted person is gone with its distinct ids; a later event starts a new person', async () => {
  await apply(entry(ev('e', 'u', { $set: { a: 1 } })));
  await deletePerson(person('u')!);
  assert.is(personByDistinctId(store, P, 'u'), undefined);
  await apply(entry(ev('e', 'u', { $set: { b: 1 } })));
  const p = person('u')!;
  assert.is(p.id, 2);
  assert.is(p.properties.a, undefined);
  assert.is(p.uuid, personUuid(P, 'u'));
});

s('a person re-created after a deletion does not follow the merge its uuid once took part in', async () => {
  await apply(entry(ev('e', 'anon-1'), ev('e', 'user-1'), ev('$identify', 'user-1', { $anon_distinct_id: 'anon-1' })));
  assert.is(resolvePersonUuid(store, P, personUuid(P, 'anon-1')), personUuid(P, 'user-1'));
  await deletePerson(person('user-1')!);
  await apply(entry(ev('e', 'anon-1')));
  assert.is(person('anon-1')!.uuid, personUuid(P, 'anon-1'));
  assert.is(resolvePersonUuid(store, P, personUuid(P, 'anon-1')), personUuid(P, 'anon-1'));
});

s('ingestion warnings older than 30 days are pruned by the pass', async () => {
  const day = 24 * 3600 * 1000;
  let clock = NOW;
  const step = createPersonStep(store, () => clock);
  await applyEntries(store, [entry(ev('$identify', 'u', { $anon_distinct_id: 'null' }))], step);
  clock = NOW + 20 * day;
  await applyEntries(store, [entry(ev('$identify', 'u', { $anon_distinct_id: 'null' }))], step);
  assert.is(warningsSince(store, P, 0).length, 2);
  // Pruning runs at most hourly: 31 days on, the first warning goes, the second stays.
  clock = NOW + 31 * day;
  await applyEntries(store, [entry(ev('e', 'u'))], step);
  assert.equal(warningsSince(store, P, 0).map((w) => w.timestamp), [new Date(NOW + 20 * day).toISOString()]);
});

s('ids far over the LMDB key limit in $anon_distinct_id and alias are cut to 200 characters, not a failed batch', async () => {
  await apply(entry(ev('$pageview', 'z'.repeat(200))));
  await apply(entry(ev('$identify', 'user-long', { $anon_distinct_id: 'z'.repeat(3000) }), ev('$create_alias', 'user-long', { alias: 'y'.repeat(3000) })));
  assert.equal(person('user-long')!.distinct_ids, ['z'.repeat(200), 'user-long', 'y'.repeat(200)]);
});

s.run();
