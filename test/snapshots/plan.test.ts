// Which snapshot a joining node restores, which are kept, and how far the control stream
// may be cut (src/snapshots/plan.ts): pure decisions over the streams' state.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newestUsable, retention, SNAPSHOT_FORMAT, usable, type SnapshotMeta, type StreamsNow } from '../../src/snapshots/plan.js';

const s = suite('snapshots: plan');

const snap = (name: string, created: string, controlSeq: number, eventPosition: number, over: Partial<SnapshotMeta> = {}): SnapshotMeta => ({
  name, format: SNAPSHOT_FORMAT, created, size: 100, control: { stream: 'nats:C:1', seq: controlSeq },
  events: { log: 'nats:E:1', position: eventPosition }, node: 'n', took_ms: 1, ...over,
});
const now = (controlFirst: number, eventsFirst: number): StreamsNow => ({
  control: { id: 'nats:C:1', first: controlFirst, last: 1000, purgeable: true }, events: { id: 'nats:E:1', first: eventsFirst },
});

s('usable while both streams hold everything after its positions, for these streams and this format only', () => {
  const m = snap('a', '2026-11-27T09:00:00.000Z', 100, 50);
  assert.ok(usable(m, now(1, 1)));
  assert.ok(usable(m, now(101, 51)), 'streams starting right after it');
  assert.not.ok(usable(m, now(102, 1)), 'control stream cut past it');
  assert.not.ok(usable(m, now(1, 52)), 'events aged out past it');
  assert.not.ok(usable({ ...m, control: { stream: 'nats:C:2', seq: 100 } }, now(1, 1)), 'another control stream');
  assert.not.ok(usable({ ...m, events: { log: 'nats:E:0', position: 50 } }, now(1, 1)), 'another event stream');
  assert.not.ok(usable({ ...m, format: SNAPSHOT_FORMAT + 1 }, now(1, 1)), 'a newer format');
  assert.not.ok(usable(m, { control: null, events: now(1, 1).events }), 'no control stream');
});

s('a joining node takes the newest usable snapshot', () => {
  const old = snap('old', '2026-11-27T08:00:00.000Z', 100, 40);
  const mid = snap('mid', '2026-11-27T09:00:00.000Z', 200, 45);
  const young = snap('young', '2026-11-27T10:00:00.000Z', 300, 48);
  assert.is(newestUsable([old, young, mid], now(1, 1))?.name, 'young');
  // The newest is of no use when the event stream aged out past it (it never happens in
  // order, but a snapshot taken on a node far behind can be younger and older at once).
  assert.is(newestUsable([old, { ...young, events: { log: 'nats:E:1', position: 10 } }, mid], now(1, 20))?.name, 'mid');
  assert.is(newestUsable([old], now(500, 1)), null);
});

s('keeps the newest usable ones, removes the rest, and cuts the control stream up to the oldest kept once there are that many', () => {
  const metas = [
    snap('s1', '2026-11-27T06:00:00.000Z', 100, 10), snap('s2', '2026-11-27T07:00:00.000Z', 180, 20),
    snap('s3', '2026-11-27T08:00:00.000Z', 250, 30), snap('s4', '2026-11-27T09:00:00.000Z', 300, 40),
    snap('other', '2026-11-27T09:30:00.000Z', 900, 40, { control: { stream: 'nats:C:0', seq: 900 } }),
  ];
  const r = retention(metas, now(1, 1), 3);
  assert.equal(r.keep.map((m) => m.name), ['s4', 's3', 's2']);
  assert.equal(r.remove.map((m) => m.name).sort(), ['other', 's1']);
  assert.is(r.purgeThrough, 180);
  assert.equal(retention(metas, now(1, 1), 1).purgeThrough, 300);
  assert.equal(retention([], now(1, 1), 3), { keep: [], remove: [], purgeThrough: 0 });
  // Fewer than `keep`: all kept, nothing cut yet.
  const fewer = retention(metas, now(1, 1), 5);
  assert.equal([fewer.keep.length, fewer.remove.map((m) => m.name), fewer.purgeThrough], [4, ['other'], 0]);
});

s.run();
