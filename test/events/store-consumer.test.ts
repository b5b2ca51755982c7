// The consumer loop against a real LMDB store: one event that cannot be applied as it
// is never stops the events around it, loses nothing it can keep, and says why; a
// store that cannot write stops the loop without skipping anything.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { eventStorePosition } from '../../src/events/consumer.js';
import type { EventPreparation } from '../../src/persons/step.js';
import { applyEntriesIsolating } from '../../src/events/store-consumer.js';
import { cutDeepValues, nestedDeeperThan } from '../../src/events/cut-deep.js';
import { eventByUuid } from '../../src/events/query.js';
import type { CapturedEvent, LogEntry } from '../../src/log/types.js';
import { encodeFrames, recordEntry } from '../../src/log/record.js';
import { eventsFrame, decodeRecord } from '../../src/capture/frames.js';
import { listDeadLetters, type QuarantinedRecord } from '../../src/log/consumers/dead-letters.js';
import { createPersonStep } from '../../src/persons/step.js';
import { personRecordByDistinctId } from '../../src/persons/store.js';
import { warningsSince } from '../../src/ingestion-warnings/store.js';
import { personUuid } from '../../src/persons/person-uuid.js';
import { tempDir } from '../helpers/temp-dir.js';
import { requestFrame } from '../helpers/capture-frames.js';
import { captureFrame } from '../../src/capture/frames.js';
import { eventMaker } from '../helpers/person-events.js';

const P = 1;
const NOW = Date.parse('2026-01-10T12:00:00.000Z');
let store: Store;
let dir: string;
let seq = 0;
const ev = eventMaker(P, NOW);
// As the log readers hand them out: every read of `events` decodes the record's JSON
// afresh. NESTED stands for an array nested 5,000 levels deep, which JSON.parse reads
// but JSON.stringify and the store's encoder cannot write.
const NESTED = '<nested>';
const entry = (...events: CapturedEvent[]): LogEntry => {
  const json = JSON.stringify(events).replaceAll(`"${NESTED}"`, '['.repeat(5000) + ']'.repeat(5000));
  return { seq: ++seq, get events() { return JSON.parse(json) as CapturedEvent[]; } };
};
const storedCount = () => [...store.eventRows.getRange()].filter(({ value }) => value !== null).length;
const depthOf = (v: unknown): number => (Array.isArray(v) ? 1 + (v.length === 0 ? 0 : depthOf(v[0])) : 0);
const warnings = () => warningsSince(store, P, 0).map((w) => ({ type: w.type, outcome: w.details.outcome, eventUuid: w.details.eventUuid }));

let step: () => EventPreparation;
const s = suite('consumer loop');
s.before.each(() => {
  dir = tempDir('hedgerow-consumer-loop-');
  store = openStore(dir, tables);
  step = createPersonStep(store, () => NOW);
});
s.after.each(async () => {
  await store.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

s('an event the person step throws on is stored without a person; the events around it keep theirs', async () => {
  const failing = (): EventPreparation => {
    const inner = step();
    return { prepare: (e) => { if (e.event === 'boom') throw new Error('rule failed'); return inner.prepare(e); }, commit: () => inner.commit(), personProperties: () => inner.personProperties(), operate: (op) => inner.operate(op), finish: () => inner.finish() };
  };
  const before = ev('$pageview', 'alice', { $set: { plan: 'pro' } });
  const bad = ev('boom', 'alice');
  const after = ev('$pageview', 'bob');
  const other = entry(ev('$pageview', 'carol'));
  const mixed = entry(before, bad, after);
  await applyEntriesIsolating(store, [other, mixed], { startPreparation: failing, now: () => NOW });

  assert.is(eventByUuid(store, P, before.uuid)!.person_id, personUuid(P, 'alice'));
  assert.is(eventByUuid(store, P, after.uuid)!.person_id, personUuid(P, 'bob'));
  assert.is(eventByUuid(store, P, bad.uuid)!.person_id, null);
  assert.equal(personRecordByDistinctId(store, P, 'alice')!.properties.plan, 'pro');
  assert.ok(personRecordByDistinctId(store, P, 'carol'));
  assert.equal(warnings(), [{ type: 'event_processing_failed', outcome: 'stored_without_person', eventUuid: bad.uuid }]);
  assert.is(warningsSince(store, P, 0)[0].details.error, 'rule failed');
  assert.is(eventStorePosition(store), mixed.seq);
});

s('properties nested deeper than 100 levels are cut before anything reads them; the event keeps its person', async () => {
  const deep = ev('$pageview', 'dana', { deep: NESTED, $set: { deep: NESTED, plan: 'pro' } });
  const fine = ev('$pageview', 'erin');
  const last = entry(deep, fine);
  await applyEntriesIsolating(store, [last], { startPreparation: step, now: () => NOW });

  const stored = eventByUuid(store, P, deep.uuid)!;
  assert.is(depthOf(stored.properties.deep), 99);
  assert.is(stored.person_id, personUuid(P, 'dana'));
  assert.is(personRecordByDistinctId(store, P, 'dana')!.properties.plan, 'pro');
  assert.ok(eventByUuid(store, P, fine.uuid));
  assert.equal(warnings(), [{ type: 'event_processing_failed', outcome: 'stored_with_deep_values_cut', eventUuid: deep.uuid }]);
  assert.is(warningsSince(store, P, 0)[0].timestamp, new Date(NOW).toISOString());
  assert.is(eventStorePosition(store), last.seq);
});

s('an event the step turns unstorable is stored without its person', async () => {
  const cyclic = (): EventPreparation => {
    const inner = step();
    return {
      prepare: (e) => { if (e.event === 'cyclic') e.properties.self = e.properties; return inner.prepare(e); },
      commit: () => inner.commit(),
      personProperties: () => inner.personProperties(),
      operate: (op) => inner.operate(op),
      finish: () => inner.finish(),
    };
  };
  const bad = ev('cyclic', 'hal');
  const good = ev('$pageview', 'ivy');
  const last = entry(bad, good);
  await applyEntriesIsolating(store, [last], { startPreparation: cyclic, now: () => NOW });
  assert.is(eventByUuid(store, P, bad.uuid)!.person_id, null);
  assert.is(eventByUuid(store, P, good.uuid)!.person_id, personUuid(P, 'ivy'));
  assert.equal(warnings(), [{ type: 'event_processing_failed', outcome: 'stored_without_person', eventUuid: bad.uuid }]);
});

s('an event that cannot be stored at all is given up with a warning, and the entry still completes', async () => {
  // Another tool's log may hold anything, here a uuid longer than an LMDB key.
  const bad = { ...ev('$pageview', 'jay'), uuid: 'u'.repeat(3000) };
  const good = ev('$pageview', 'kim');
  const last = entry(bad, good);
  await applyEntriesIsolating(store, [last], { startPreparation: step, now: () => NOW });
  assert.ok(eventByUuid(store, P, good.uuid));
  assert.equal(warnings(), [{ type: 'event_processing_failed', outcome: 'not_stored', eventUuid: 'u'.repeat(3000) }]);
  assert.is(eventStorePosition(store), last.seq);
});

s('a replay after the isolation changes nothing: the isolated event counts as seen', async () => {
  const deep = ev('$pageview', 'dana', { deep: NESTED });
  const last = entry(deep, ev('$pageview', 'erin'));
  await applyEntriesIsolating(store, [last], { startPreparation: step, now: () => NOW });
  await applyEntriesIsolating(store, [last], { startPreparation: step, now: () => NOW + 1 });
  assert.is(storedCount(), 2);
  assert.is(warnings().length, 1);
});

s('a batch that fails because the store cannot write is thrown, and nothing is skipped', async () => {
  await applyEntriesIsolating(store, [entry(ev('$pageview', 'frank'))], { startPreparation: step });
  const position = eventStorePosition(store);
  await store.close();
  await applyEntriesIsolating(store, [entry(ev('$pageview', 'gina'))], { startPreparation: step }).then(
    () => assert.unreachable('a closed store must fail the batch'),
    (err: Error) => assert.instance(err, Error),
  );
  store = openStore(dir, tables);
  assert.is(eventStorePosition(store), position);
  assert.is(storedCount(), 1);
});

s('a record that cannot be decoded is set aside with its bytes; the records around it are applied', async () => {
  const before = ev('$pageview', 'lena', { $set: { plan: 'pro' } });
  const after = ev('$pageview', 'mo');
  const damaged = Buffer.from([0xff, 0x00, 0x13, 0x37]);
  const entries = [recordEntry(++seq, encodeFrames([eventsFrame([before])]), decodeRecord), recordEntry(++seq, damaged, decodeRecord), recordEntry(++seq, encodeFrames([eventsFrame([after])]), decodeRecord)];
  const told: QuarantinedRecord[] = [];
  await applyEntriesIsolating(store, entries, { startPreparation: step, now: () => NOW, onQuarantined: (r) => told.push(r) });

  assert.is(eventByUuid(store, P, before.uuid)!.person_id, personUuid(P, 'lena'));
  assert.is(personRecordByDistinctId(store, P, 'lena')!.properties.plan, 'pro');
  assert.is(eventByUuid(store, P, after.uuid)!.person_id, personUuid(P, 'mo'));
  assert.is(eventStorePosition(store), entries[2].seq);
  assert.equal(told, [{ log: 'lmdb', seq: entries[1].seq, error: 'log record: unknown format 255', bytes: 4 }]);
  assert.equal(listDeadLetters(store), [{
    log: 'lmdb', seq: entries[1].seq, error: 'log record: unknown format 255', quarantined_at: new Date(NOW).toISOString(),
    bytes: 4, record: damaged.toString('base64'),
  }]);
});

s('an event its capture frame cannot rebuild costs itself alone: the requests beside it in the record are stored, a warning says what was lost', async () => {
  // A record of a group commit: three clients' requests. The middle one's frame says it
  // dropped nothing, so its `null` is taken as an event, which cannot be built; and it was
  // written before capture checked `_`, with a sent_at no date can hold.
  const text = Buffer.from(JSON.stringify({ api_key: 'k', batch: [null, { event: 'same request', distinct_id: 'olaf', uuid: '0190a0e4-1c4e-7b1a-9e5b-00000000a001' }] }));
  const hostile = captureFrame({
    projectId: P, nowMs: NOW, ip: null, sentAtMs: 1e20, historical: false, droppedAt: null, kept: 2, missingUuids: 1,
  }, text);
  const record = encodeFrames([
    requestFrame({ api_key: 'k', event: 'before', distinct_id: 'nia' }, { projectId: P, nowMs: NOW }),
    hostile,
    requestFrame({ api_key: 'k', batch: [{ event: 'after', distinct_id: 'pia' }, { event: 'after', distinct_id: 'quinn' }] }, { projectId: P, nowMs: NOW }),
  ]);
  const last = recordEntry(++seq, record, decodeRecord);
  await applyEntriesIsolating(store, [last], { startPreparation: step, now: () => NOW });

  const stored = [...store.eventRows.getRange()].filter(({ value }) => value !== null).map(({ value }) => [value!.event, value!.distinct_id]);
  assert.equal(stored.sort(), [['after', 'pia'], ['after', 'quinn'], ['before', 'nia'], ['same request', 'olaf']]);
  const olaf = eventByUuid(store, P, '0190a0e4-1c4e-7b1a-9e5b-00000000a001')!;
  assert.is(olaf.timestamp, new Date(NOW).toISOString());
  assert.is(olaf.person_id, personUuid(P, 'olaf'));
  assert.equal(warningsSince(store, P, 0).map((w) => [w.type, w.details.outcome, w.details.event]), [['event_processing_failed', 'not_stored', null]]);
  assert.match(String(warningsSince(store, P, 0)[0].details.error), /null/);
  assert.equal(listDeadLetters(store), []);
  assert.is(eventStorePosition(store), last.seq);
});

s('an entry whose events are all unreadable still moves the position, also when applied event by event', async () => {
  const text = Buffer.from('[null,null]');
  const frame = captureFrame({ projectId: P, nowMs: NOW, ip: null, sentAtMs: null, historical: false, droppedAt: null, kept: 2, missingUuids: 2 }, text);
  const bad = recordEntry(++seq, encodeFrames([frame]), decodeRecord);
  // A deep event makes the batch fail, so the ladder goes entry by entry and event by event.
  const deep = entry(ev('$pageview', 'rhea', { deep: NESTED }));
  const ok = recordEntry(++seq, encodeFrames([requestFrame({ api_key: 'k', event: 'after', distinct_id: 'sol' }, { projectId: P, nowMs: NOW })]), decodeRecord);
  await applyEntriesIsolating(store, [deep, bad, ok], { startPreparation: step, now: () => NOW });
  assert.is(eventStorePosition(store), ok.seq);
  assert.is(warningsSince(store, P, 0).filter((w) => w.details.outcome === 'not_stored').length, 2);
  assert.equal(listDeadLetters(store), []);
});

s('depth is measured without copying, and cutting keeps everything above the cut', () => {
  assert.ok(nestedDeeperThan({ a: { b: [1, { c: 2 }] } }, 3));
  assert.not.ok(nestedDeeperThan({ a: { b: [1, { c: 2 }] } }, 4));
  assert.not.ok(nestedDeeperThan('text', 0));
  assert.equal(cutDeepValues({ a: { b: [1, { c: 2 }] }, d: 'x' }, 3), { a: { b: [1, null] }, d: 'x' });
  assert.equal(cutDeepValues({ a: { b: 1 } }, 5), { a: { b: 1 } });
  assert.is(cutDeepValues('text', 0), 'text');
});

s.run();
