// The event-store pass alone, against a real LMDB store: idempotent on uuid within a
// batch, across batches and across projects; the position moves with the writes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Store } from '../../src/tables.js';
import { applyEntries, eventStorePosition } from '../../src/events/consumer.js';
import { eventByUuid } from '../../src/events/query.js';
import type { CapturedEvent, LogEntry } from '../../src/log/types.js';
import { storePerTest } from '../helpers/temp-store.js';
import { appliedByAll } from '../../src/log/retention.js';

let store: Store;
let seq = 0;

function ev(uuid: string, event: string, projectId = 1): CapturedEvent {
  return {
    uuid, event, distinct_id: 'd', properties: {}, timestamp: '2026-01-10T12:00:00.000Z',
    project_id: projectId, ip: null, now: '2026-01-10T12:00:00.000Z', sent_at: null, historical: false,
  };
}
const entry = (...events: CapturedEvent[]): LogEntry => ({ seq: ++seq, events });
const stored = () => [...store.eventRows.getRange()].flatMap(({ value }) => (value ? [value.event] : []));

const s = suite('event-store pass');
storePerTest(s, 'hedgerow-store-pass-', (opened) => { store = opened; });

const U1 = '0190a0e4-1c4e-7b1a-9e5b-000000000001';
const U2 = '0190a0e4-1c4e-7b1a-9e5b-000000000002';

s('a uuid seen before is skipped: in the same batch, in a later batch, and on a replay of the same entries', async () => {
  const first = entry(ev(U1, 'first'), ev(U1, 'same uuid, same batch'));
  await applyEntries(store, [first]);
  assert.equal(stored(), ['first']);
  const second = entry(ev(U1, 'resent'), ev(U2, 'new'));
  await applyEntries(store, [second]);
  assert.equal(stored().sort(), ['first', 'new']);
  assert.is(eventStorePosition(store), second.seq);
  await applyEntries(store, [first, second]);
  assert.equal(stored().sort(), ['first', 'new']);
  assert.is(eventByUuid(store, 1, U1)?.event, 'first');
});

s('the same uuid in two projects is two events', async () => {
  const last = entry(ev(U1, 'project 1', 1), ev(U1, 'project 2', 2));
  await applyEntries(store, [last]);
  assert.equal(stored(), ['project 1', 'project 2']);
  assert.is(eventStorePosition(store), last.seq);
});

s('positions are kept per log: another log sequence never moves the embedded log position, nor its pruning', async () => {
  const embedded = entry(ev(U1, 'via lmdb'));
  await applyEntries(store, [embedded]);
  const nats = { seq: 5000, events: [ev(U2, 'via nats')] };
  await applyEntries(store, [nats], undefined, 'nats:HEDGEROW_EVENTS:2026-01-01T00:00:00Z');
  assert.is(eventStorePosition(store), embedded.seq);
  assert.is(eventStorePosition(store, 'nats:HEDGEROW_EVENTS:2026-01-01T00:00:00Z'), 5000);
  assert.is(eventStorePosition(store, 'nats:HEDGEROW_EVENTS:2026-02-01T00:00:00Z'), 0);
  assert.is(appliedByAll(store), embedded.seq);
});

s.run();
