// Replicas of one ordered history (DESIGN.md): two nodes whose event store applies the same
// log build the same persons and groups, entry for entry, though their clocks differ, their
// consumers cut the log into different batches and their person caches differ in size.
// Person processing takes nothing from the wall clock or a random source: uuids are
// UUIDv5 of project and distinct id, timestamps come from the events, numeric ids from the
// order of the log.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyEntries } from '../../src/events/consumer.js';
import { createPersonStep } from '../../src/persons/step.js';
import { personUuid } from '../../src/persons/person-uuid.js';
import type { LogEntry } from '../../src/log/types.js';
import { replicaContents, replicasPerTest } from '../helpers/temp-store.js';
import { eventMaker } from '../helpers/person-events.js';
import { xorshift } from '../helpers/xorshift.js';

const s = suite('persons: replicas of one log');
const NOW = Date.parse('2026-03-10T12:00:00.000Z');

const PERSON_DBS = ['persons', 'personDistinctIds', 'personIds', 'personRedirects', 'personSeq', 'groupTypes', 'groups', 'eventRows'] as const;

// A reproducible history of anonymous visits, identifies (merges), aliases, property
// updates and group identifies over a few dozen distinct ids.
function history(count: number): LogEntry[] {
  const rnd = xorshift(19);
  const ev = eventMaker(1, NOW);
  const pick = (n: number) => Math.floor(rnd() * n);
  const entries: LogEntry[] = [];
  for (let seq = 1; entries.length * 4 < count; seq++) {
    const events = Array.from({ length: 4 }, () => {
      const anon = `anon-${pick(30)}`;
      const user = `user-${pick(12)}`;
      switch (pick(7)) {
        case 0: return ev('$identify', user, { $anon_distinct_id: anon, $set: { email: `${user}@example.com`, n: pick(100) } });
        case 1: return ev('$create_alias', user, { alias: `alias-${pick(10)}` });
        case 2: return ev('$set', anon, { $set: { plan: ['free', 'pro'][pick(2)] }, $set_once: { first: pick(100) } });
        case 3: return ev('$groupidentify', anon, { $group_type: ['company', 'team'][pick(2)], $group_key: `g-${pick(5)}`, $group_set: { size: pick(50) } });
        case 4: return ev('$pageview', user, { $groups: { company: `g-${pick(5)}` }, $set: { last: pick(10) } });
        default: return ev('$pageview', anon, { $current_url: `https://example.com/${pick(9)}` });
      }
    });
    entries.push({ seq, events } as unknown as LogEntry);
  }
  return entries;
}

const node = replicasPerTest(s, 'hedgerow-replica-');

s('two event stores applying the same log, batched differently, at different times, hold the same persons and groups', async () => {
  const entries = history(600);
  const [a, b] = [node(), node()];
  // Node A: large batches, a large person cache, its clock at NOW.
  const stepA = createPersonStep(a, () => NOW);
  for (let i = 0; i < entries.length; i += 40) await applyEntries(a, structuredClone(entries.slice(i, i + 40)), stepA, undefined, () => NOW);
  // Node B: one entry per transaction, a person cache of 4, a clock a day and more later, moving.
  let clock = NOW + 86_400_000;
  const stepB = createPersonStep(b, () => (clock += 777), 4);
  for (const entry of entries) await applyEntries(b, structuredClone([entry]), stepB, undefined, () => clock);

  for (const db of PERSON_DBS) assert.equal(replicaContents(b, db), replicaContents(a, db), `${db} differs`);
  // Not two empty stores: persons, merges and groups were made.
  assert.ok(replicaContents(a, 'persons').length > 10);
  assert.ok(replicaContents(a, 'personRedirects').length > 0);
  assert.ok(replicaContents(a, 'groups').length > 0);
  // A person's uuid is UUIDv5 of project and distinct id: the person of anon-0's first event.
  const row = [...a.personDistinctIds.getRange()].find(({ key }) => key[1] === 'anon-0');
  assert.ok(row);
  const uuids = [...a.persons.getKeys()].map((k) => k[1]);
  assert.ok(uuids.every((u) => /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-/.test(u)), 'every person uuid is a UUIDv5');
  assert.ok(uuids.includes(personUuid(1, 'anon-0')) || [...a.personRedirects.getKeys()].some((k) => k[1] === personUuid(1, 'anon-0')));
});

s.run();
