// Stored values outlive the encoding and the layout they were written with: events and
// person rows are plain msgpack maps now, values an earlier version wrote as msgpack
// records still read back whole, and events kept under [project, timestamp, uuid] with
// a separate uuid index move to the current layout at start-up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { open } from 'lmdb';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { migrateEventLayout } from '../../src/events/migrate-layout.js';
import { eventByUuid, queryEvents } from '../../src/events/query.js';
import { applyEntries } from '../../src/events/consumer.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('store encodings');

const event = { uuid: 'u-1', event: 'signed up', distinct_id: 'd-1', properties: { plan: 'pro', $set: { email: 'a@example.com' }, list: [1, 'two', null] }, timestamp: '2026-01-01T00:00:00.000Z', person_id: null, elements_chain: '' };
const person = { id: 1, uuid: 'p-1', created_at: '2026-01-01T00:00:00.000Z', properties: { email: 'a@example.com' }, is_identified: true, distinct_ids: ['d-1'] };

s('events and person rows written as msgpack records read back unchanged, beside new ones', async () => {
  const dataDir = tempDir('hedgerow-store-');
  try {
    // What earlier versions wrote: lmdb-js's default msgpack, records on.
    const old = open({ path: join(dataDir, 'hedgerow.lmdb'), maxDbs: 32 });
    const oldEvents = old.openDB({ name: 'events' });
    const oldUuids = old.openDB({ name: 'event_uuids' });
    const oldRows = old.openDB({ name: 'person_distinct_ids' });
    await old.transaction(() => {
      oldEvents.put([1, 1000, 'u-1'], event);
      oldUuids.put([1, 'u-1'], 1000);
      // A dropped event: its uuid was recorded, nothing stored.
      oldUuids.put([1, 'u-dropped'], 1500);
      oldRows.put([1, 'd-1'], person);
    });
    await old.close();

    const store = openStore(dataDir, tables);
    try {
      assert.equal(store.personDistinctIds.get([1, 'd-1']), person);
      assert.is(await migrateEventLayout(store), 1);
      assert.is(await migrateEventLayout(store), 0, 'a second start moves nothing');
      assert.equal(eventByUuid(store, 1, 'u-1'), event);
      assert.is(store.legacyEvents.getCount() + store.legacyEventUuids.getCount(), 0);
      const later = { ...event, uuid: 'u-2', timestamp: '2026-01-01T00:00:01.000Z' };
      const resent = { ...later, uuid: 'u-dropped', project_id: 1, ip: null, now: later.timestamp, sent_at: null, historical: false };
      await applyEntries(store, [{ seq: 1, events: [{ ...later, project_id: 1, ip: null, now: later.timestamp, sent_at: null, historical: false }, resent] }]);
      assert.equal(queryEvents(store, { projectId: 1, limit: 10 }).rows.map((r) => r.value.uuid), ['u-2', 'u-1']);
      assert.is(eventByUuid(store, 1, 'u-dropped'), undefined, 'a uuid the old index had seen stays a duplicate');
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

s.run();
