// The stored persons and groups against a model: the same rules (identity.ts,
// normalize.ts, groups.ts) applied one event at a time to plain Maps. What differs
// between the two is everything the consumer adds around the rules — the batch working
// set, the cache kept across transactions, person rows (whole, or by reference past
// PERSON_ROW_COPY_LIMIT ids), merges and group updates inside one transaction, group
// types handed out while events are prepared, duplicate uuids, replays after a crash, a
// restart with an empty cache and deletions through the API — so any difference is a
// bug there. Random event streams over a few dozen distinct ids (some illegal, so merges
// are refused too) and seven group types make persons with many ids, chains of merges,
// refused group types and repeated values; each seed is cut into transactions
// differently.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { applyEntries } from '../../src/events/consumer.js';
import { eventByUuid } from '../../src/events/query.js';
import type { CapturedEvent, LogEntry } from '../../src/log/types.js';
import { createPersonStep } from '../../src/persons/step.js';
import { normalizePersonEvent } from '../../src/persons/normalize.js';
import { processPersonEvent } from '../../src/persons/identity.js';
import { groupIdentifyFields, resolveGroupType, upsertGroup } from '../../src/persons/groups.js';
import { groupByKey, groupTypeMapping, personRecordByDistinctId, resolvePersonUuid } from '../../src/persons/store.js';
import { personOperationMaker, recordOf } from '../helpers/log-operations.js';
import { PERSON_ROW_COPY_LIMIT, type GroupRecord, type GroupTypeRecord, type PersonRecord } from '../../src/persons/tables.js';
import { storePerTest } from '../helpers/temp-store.js';
import { eventMaker } from '../helpers/person-events.js';
import { xorshift } from '../helpers/xorshift.js';

const P = 1;
const NOW = Date.parse('2026-01-10T12:00:00.000Z');
const SEEDS = 12;
const EVENTS_PER_SEED = 400;

const IDS = [...Array.from({ length: 24 }, (_, i) => `user-${i}`), 'anonymous', 'null', 'Guest'];
const KEYS = ['plan', 'email', 'seen', '$current_url', '$browser'];
const VALUES = ['a', 'b', 1, true, null, { nested: 'x' }];
// Seven group types: the sixth and seventh to appear are refused.
const GROUP_TYPES = ['company', 'team', 'project', 'org', 'region', 'plan', 'shard'];
const GROUP_KEYS = ['g1', 'g2', 'g3'];

function randomStream(random: () => number, count: number): CapturedEvent[] {
  const ev = eventMaker(P, NOW);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const maybe = (p: number) => random() < p;
  const someProperties = () => {
    const out: Record<string, unknown> = {};
    for (let i = Math.floor(random() * 3); i > 0; i--) out[pick(KEYS)] = pick(VALUES);
    return out;
  };
  const events: CapturedEvent[] = [];
  for (let i = 0; i < count; i++) {
    // A resend of an earlier event, whole: a duplicate uuid.
    if (events.length > 0 && maybe(0.05)) {
      events.push(structuredClone(pick(events)));
      continue;
    }
    const properties: Record<string, unknown> = {};
    if (maybe(0.6)) properties.$set = someProperties();
    if (maybe(0.3)) properties.$set_once = someProperties();
    if (maybe(0.1)) properties.$unset = [pick(KEYS)];
    if (maybe(0.05)) properties.$process_person_profile = false;
    const r = random();
    if (r < 0.08) {
      events.push(ev('$groupidentify', pick(IDS), { $group_type: pick(GROUP_TYPES), $group_key: pick(GROUP_KEYS), $group_set: someProperties() }));
      continue;
    }
    const name = r < 0.55 ? pick(['$pageview', 'signed up']) : r < 0.75 ? '$identify' : r < 0.9 ? '$create_alias' : r < 0.95 ? '$merge_dangerously' : '$set';
    if (name === '$identify') properties.$anon_distinct_id = pick(IDS);
    if (name === '$create_alias' || name === '$merge_dangerously') properties.alias = pick(IDS);
    if (maybe(0.15)) properties.$groups = { [pick(GROUP_TYPES)]: pick(GROUP_KEYS) };
    events.push(ev(name, pick(IDS), properties));
  }
  return events;
}

// The rules applied to Maps, one event at a time: distinct id → person, group type →
// index, (index, key) → group, event → the `$group_<n>` it carries.
function createModel() {
  const byId = new Map<string, PersonRecord>();
  let groupTypes: GroupTypeRecord[] = [];
  const groups = new Map<string, GroupRecord>();
  const groupsOfEvent = new Map<string, Record<string, unknown>>();
  const typeIndex = (type: string, timestamp: string) => {
    const resolved = resolveGroupType(groupTypes, type, timestamp);
    if (resolved?.added) groupTypes = [...groupTypes, resolved.added];
    return resolved ? resolved.index : null;
  };
  const seen = new Set<string>();
  const personOfEvent = new Map<string, string | null>();
  let lastId = 0;
  return {
    byId,
    personOfEvent,
    groups,
    groupsOfEvent,
    groupTypes: () => groupTypes,
    apply(input: CapturedEvent) {
      if (seen.has(input.uuid)) return;
      seen.add(input.uuid);
      const ev = structuredClone(input);
      const normalized = normalizePersonEvent(ev);
      if (normalized.kind === 'drop') return;
      ev.properties = normalized.properties;
      if (!normalized.processPerson) {
        personOfEvent.set(ev.uuid, null);
        return;
      }
      const outcome = processPersonEvent(ev, (id) => byId.get(id));
      personOfEvent.set(ev.uuid, outcome.personUuid);
      const associated: Record<string, unknown> = {};
      const named = ev.properties.$groups;
      if (named && typeof named === 'object') {
        for (const [type, key] of Object.entries(named)) {
          const index = typeIndex(type, ev.timestamp);
          if (index !== null) associated[`$group_${index}`] = key;
        }
      }
      groupsOfEvent.set(ev.uuid, associated);
      const change = outcome.change;
      if (change) {
        const person = change.kind === 'create' ? { id: ++lastId, ...change.person } : change.person;
        for (const id of person.distinct_ids) byId.set(id, person);
      }
      const g = ev.event === '$groupidentify' ? groupIdentifyFields(ev.properties) : null;
      const index = g && typeIndex(g.groupType, ev.timestamp);
      if (g && index !== null) {
        const key = `${index}/${g.groupKey}`;
        const next = upsertGroup(groups.get(key), index, g, ev.timestamp);
        if (next) groups.set(key, next);
      }
    },
    delete(distinctId: string) {
      const person = byId.get(distinctId);
      if (person) for (const id of person.distinct_ids) byId.delete(id);
    },
  };
}

const s = suite('stored persons match the person rules applied one event at a time');
let store: Store;
storePerTest(s, 'hedgerow-person-model-', (opened) => { store = opened; });

// Odd seeds also delete persons through the API now and then; every third seed gives
// the consumer a cache of 4 persons, so most lookups go back to LMDB.
async function runSeed(seed: number) {
  const random = xorshift(seed * 7919);
  const events = randomStream(random, EVENTS_PER_SEED);
  const model = createModel();
  const cachedPersons = seed % 3 === 0 ? 4 : undefined;
  const startStep = () => createPersonStep(store, () => NOW, cachedPersons);
  let step = startStep();
  let seq = 0;
  const ops = personOperationMaker(P);
  const applied: LogEntry[] = [];
  for (let i = 0; i < events.length;) {
    // A transaction of 1–4 log entries of 1–12 events each. The consumer gets copies (it
    // reshapes the events it stores); `applied` keeps the entries as they were sent.
    const entries: LogEntry[] = [];
    const batch: CapturedEvent[] = [];
    for (let n = 1 + Math.floor(random() * 4); n > 0 && i < events.length; n--) {
      const size = 1 + Math.floor(random() * 12);
      const slice = events.slice(i, i + size);
      batch.push(...slice);
      entries.push({ seq: ++seq, events: slice });
      i += size;
    }
    await applyEntries(store, entries.map((e) => structuredClone(e)), step, undefined, () => NOW);
    for (const ev of batch) model.apply(ev);
    applied.push(...entries);
    const r = random();
    if (r < 0.1) {
      // A replay of an entry already applied, as after a crash: it changes nothing.
      const again = applied[Math.floor(random() * applied.length)];
      await applyEntries(store, [structuredClone(again)], step, undefined, () => NOW);
    } else if (r < 0.15) {
      // A restart: the consumer's cache starts empty.
      step = startStep();
    } else if (r < 0.2 && seed % 2 === 1) {
      const id = IDS[Math.floor(random() * IDS.length)];
      const stored = personRecordByDistinctId(store, P, id);
      // A deletion through the API: an operation in the log, in a transaction of its own.
      if (stored) await applyEntries(store, [recordOf(++seq, ops.deletePerson(stored.uuid))], step, undefined, () => NOW);
      model.delete(id);
    }
  }
  return { events, model };
}

for (let seed = 1; seed <= SEEDS; seed++) {
  s(`seed ${seed}: every distinct id reads the person the model holds, every group and event the model's`, async () => {
    const { events, model } = await runSeed(seed);
    assert.equal(groupTypeMapping(store, P), model.groupTypes(), `seed ${seed}: group types`);
    assert.is(model.groupTypes().length, 5, `seed ${seed}: the stream names more group types than a project may have`);
    for (const type of model.groupTypes()) {
      for (const key of GROUP_KEYS) {
        assert.equal(groupByKey(store, P, type.group_type_index, key), model.groups.get(`${type.group_type_index}/${key}`), `seed ${seed}: group ${type.group_type} ${key}`);
      }
    }
    if (seed % 2 === 0) {
      // The stream is worth its name: without deletions, merges make persons past the
      // row-copy limit (kept by reference, src/persons/tables.ts).
      assert.ok(Math.max(...[...model.byId.values()].map((p) => p.distinct_ids.length)) > PERSON_ROW_COPY_LIMIT);
    }
    for (const id of IDS) {
      assert.equal(personRecordByDistinctId(store, P, id), model.byId.get(id), `seed ${seed}, distinct id ${id}`);
    }
    for (const ev of events) {
      const row = eventByUuid(store, P, ev.uuid);
      if (!model.personOfEvent.has(ev.uuid)) {
        assert.is(row, undefined, `seed ${seed}: dropped event ${ev.uuid} is not stored`);
        continue;
      }
      const personUuid = model.personOfEvent.get(ev.uuid)!;
      assert.is(row?.person_id, personUuid, `seed ${seed}: person of event ${ev.uuid}`);
      const carried = Object.fromEntries(Object.entries(row!.properties).filter(([k]) => /^\$group_\d$/.test(k)));
      assert.equal(carried, model.groupsOfEvent.get(ev.uuid) ?? {}, `seed ${seed}: groups of event ${ev.uuid}`);
      // Without deletions, an event's person was merged, maybe through a chain, into
      // the person its distinct id has now: the events API reads it as that person.
      if (seed % 2 === 0 && personUuid !== null) {
        assert.is(resolvePersonUuid(store, P, personUuid), model.byId.get(ev.distinct_id)!.uuid, `seed ${seed}: event ${ev.uuid} follows merges`);
      }
    }
  });
}

s.run();
