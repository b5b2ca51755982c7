// Person deletions and flag hash keys as operations of the event log (docs/decisions/0032):
// the event store applies them in their places among the events, so every node holds the
// same persons, distinct ids, overrides and event person_ids whatever it had applied when
// the request was taken and however it batches the log, and applies each once across
// replays. No other reader of the log, and no read of events, ever sees one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { applyEntries, eventStorePosition } from '../../src/events/consumer.js';
import { applyEntriesIsolating } from '../../src/events/store-consumer.js';
import { eventByUuid, queryEvents } from '../../src/events/query.js';
import { createPersonStep, type EventPreparation } from '../../src/persons/step.js';
import { personUuid } from '../../src/persons/person-uuid.js';
import { hashKeyOverrides, personRecordByDistinctId } from '../../src/persons/store.js';
import { BatchBuilder } from '../../src/insights/from-store.js';
import { stagedEvents } from '../helpers/staged-events.js';
import type { LogEntry } from '../../src/log/types.js';
import { replicaContents, replicasPerTest } from '../helpers/temp-store.js';
import { eventMaker } from '../helpers/person-events.js';
import { personOperationMaker, recordOf } from '../helpers/log-operations.js';

const s = suite('persons: operations in the event log');
const P = 1;
const NOW = Date.parse('2026-03-10T12:00:00.000Z');

const node = replicasPerTest(s, 'hedgerow-person-ops-');

const DBS = ['persons', 'personDistinctIds', 'personIds', 'personRedirects', 'personSeq', 'groupTypes', 'groups', 'eventRows', 'hashKeyOverrides'] as const;

const ev = eventMaker(P, NOW);
const ops = personOperationMaker(P);
const USER = personUuid(P, 'user-1');
// Merges into user-1, then, in one record: flag hash keys for user-1, its deletion while
// events for its ids keep coming (as a node capturing $identify while another deletes),
// more events for those ids, and hash keys for the person they make anew.
const flaky = ev('flaky', 'other');
const hashKeysBefore = ops.hashKeys(['user-1'], ['flag-a'], 'anon-1');
const deletion = ops.deletePerson(USER);
const hashKeysAfter = ops.hashKeys(['user-1', 'anon-3'], ['flag-b'], 'anon-3');
const LOG: LogEntry[] = [
  recordOf(1, [ev('$pageview', 'anon-1', { $set: { a: 1 } }), ev('$pageview', 'user-1'), ev('$identify', 'user-1', { $anon_distinct_id: 'anon-1', $set: { email: 'u@x' } })]),
  recordOf(2, [ev('$pageview', 'anon-2'), ev('$identify', 'user-1', { $anon_distinct_id: 'anon-2' })]),
  recordOf(3,
    [ev('$pageview', 'other'), flaky], hashKeysBefore, deletion,
    [ev('$pageview', 'anon-1', { $set: { b: 2 } }), ev('$identify', 'user-1', { $anon_distinct_id: 'anon-3' })], hashKeysAfter,
    [ev('$pageview', 'user-1', { $set: { c: 3 } })]),
  recordOf(4, [ev('$pageview', 'user-1')], ops.hashKeys(['user-1'], ['flag-b', 'flag-c'], 'user-1'), [ev('$pageview', 'anon-2')]),
];
const OPERATIONS = [hashKeysBefore, deletion, hashKeysAfter];

// What the log above must make, on every node.
function assertOutcome(store: Store) {
  const user = personRecordByDistinctId(store, P, 'user-1')!;
  assert.equal([user.uuid, user.id, user.distinct_ids], [USER, 6, ['user-1', 'anon-3']]);
  assert.equal({ ...user.properties, $creator_event_uuid: 0 }, { c: 3, $creator_event_uuid: 0 });
  const anon1 = personRecordByDistinctId(store, P, 'anon-1')!;
  assert.equal([anon1.uuid, anon1.id, anon1.properties.a, anon1.properties.b], [personUuid(P, 'anon-1'), 5, undefined, 2]);
  const anon2 = personRecordByDistinctId(store, P, 'anon-2')!;
  assert.equal([anon2.uuid, anon2.id], [personUuid(P, 'anon-2'), 7]);
  // The overrides of the deleted person went with it; the new one has the later ones.
  assert.equal(hashKeyOverrides(store, P, USER), { 'flag-b': 'anon-3', 'flag-c': 'user-1' });
  // Events before the deletion keep the person they had; those after carry the new ones.
  const rows = queryEvents(store, { projectId: P, limit: 100 }).rows.map((r) => r.value);
  assert.is(rows.length, 12);
  for (const op of OPERATIONS) {
    assert.is(eventByUuid(store, P, op.uuid), undefined);
    assert.ok(!rows.some((r) => r.uuid === op.uuid));
  }
}

s('two event stores applying a log with operations, batched differently, hold the same persons, overrides and events', async () => {
  const [a, b] = [node(), node()];
  await applyEntries(a, LOG, createPersonStep(a, () => NOW));
  let clock = NOW + 86_400_000;
  const stepB = createPersonStep(b, () => (clock += 777), 4);
  for (const entry of LOG) await applyEntries(b, [entry], stepB, undefined, () => clock);
  for (const db of DBS) assert.equal(replicaContents(b, db), replicaContents(a, db), `${db} differs`);
  assertOutcome(a);
});

s('applied event by event (the ladder isolating a failure), every operation keeps its place and applies once', async () => {
  const [a, c] = [node(), node()];
  await applyEntries(a, LOG, createPersonStep(a, () => NOW));
  // The batch and then record 3 alone fail on the flaky event; one by one it goes through.
  let failures = 2;
  const step = createPersonStep(c, () => NOW);
  const flakyStep = (): EventPreparation => {
    const inner = step();
    return {
      prepare: (e) => { if (e.uuid === flaky.uuid && failures > 0) { failures--; throw new Error('transient'); } return inner.prepare(e); },
      commit: () => inner.commit(), personProperties: () => inner.personProperties(), operate: (op) => inner.operate(op), finish: () => inner.finish(),
    };
  };
  await applyEntriesIsolating(c, LOG, { startPreparation: flakyStep, now: () => NOW });
  assert.is(failures, 0);
  for (const db of DBS) assert.equal(replicaContents(c, db), replicaContents(a, db), `${db} differs`);
  assertOutcome(c);
});

s('a replay of the log (a crash before the position moved) applies no operation twice', async () => {
  const [a, r] = [node(), node()];
  await applyEntries(a, LOG, createPersonStep(a, () => NOW));
  const step = createPersonStep(r, () => NOW);
  for (const entry of LOG) await applyEntries(r, [entry], step);
  // The whole log again, then record 3 again on its own: the deletion would remove the
  // user-1 person made after it, and the hash keys would land on another person.
  await applyEntries(r, LOG, step);
  await applyEntriesIsolating(r, [LOG[2]], { startPreparation: createPersonStep(r, () => NOW) });
  for (const db of DBS) assert.equal(replicaContents(r, db), replicaContents(a, db), `${db} differs`);
  assertOutcome(r);
});

s('other readers never see an operation: entries give their events alone, the insights loader loads events alone', async () => {
  const a = node();
  await applyEntries(a, LOG, createPersonStep(a, () => NOW));
  assert.is(LOG.flatMap((e) => e.events).length, 12);
  assert.is(LOG.flatMap((e) => e.readEvents!([])).length, 12);
  const builder = new BatchBuilder(a);
  builder.addGroups(LOG);
  const loaded = stagedEvents(builder.take().eventText);
  assert.is(loaded.length, 12);
  for (const op of OPERATIONS) assert.ok(!loaded.some((e) => e.uuid === op.uuid));
});

s('an operation of a kind this version does not know is set aside; the events around it apply', async () => {
  const a = node();
  const after = ev('$pageview', 'later');
  const unknown = { uuid: '00000000-0000-4000-a000-0000000000ff', project_id: P, kind: 'persons.future', payload: {} };
  const set: unknown[] = [];
  await applyEntriesIsolating(a, [recordOf(1, [ev('$pageview', 'before')], unknown, [after])], {
    startPreparation: createPersonStep(a, () => NOW), onQuarantined: (q) => set.push(q),
  });
  assert.ok(personRecordByDistinctId(a, P, 'before'));
  assert.ok(personRecordByDistinctId(a, P, 'later'));
  assert.equal([...a.deadLetters.getKeys()], [['lmdb', 1, 'event_store', 2]]);
  assert.is(set.length, 1);
  assert.is(eventStorePosition(a), 1);
});

s.run();
