// Stored values outlive the encoding they were written with: events and person rows
// are plain msgpack maps now, and values an earlier version wrote as msgpack records
// still read back whole.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { open } from 'lmdb';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/env.js';
import { tempDir } from '../helpers/server.js';

const s = suite('store encodings');

const event = { uuid: 'u-1', event: 'signed up', distinct_id: 'd-1', properties: { plan: 'pro', $set: { email: 'a@example.com' }, list: [1, 'two', null] }, timestamp: '2026-01-01T00:00:00.000Z', person_id: null, elements_chain: '' };
const person = { id: 1, uuid: 'p-1', created_at: '2026-01-01T00:00:00.000Z', properties: { email: 'a@example.com' }, is_identified: true, distinct_ids: ['d-1'] };

s('events and person rows written as msgpack records read back unchanged, beside new ones', async () => {
  const dataDir = tempDir('hedgerow-store-');
  try {
    // What earlier versions wrote: lmdb-js's default msgpack, records on.
    const old = open({ path: join(dataDir, 'hedgerow.lmdb'), maxDbs: 32 });
    const oldEvents = old.openDB({ name: 'events' });
    const oldRows = old.openDB({ name: 'person_distinct_ids' });
    await old.transaction(() => {
      oldEvents.put([1, 1000, 'u-1'], event);
      oldRows.put([1, 'd-1'], person);
    });
    await old.close();

    const store = openStore(dataDir);
    try {
      assert.equal(store.events.get([1, 1000, 'u-1']), event);
      assert.equal(store.personDistinctIds.get([1, 'd-1']), person);
      const later = { ...event, uuid: 'u-2' };
      await store.root.transaction(() => { store.events.put([1, 2000, 'u-2'], later); });
      assert.equal(store.events.get([1, 2000, 'u-2']), later);
      assert.equal([...store.events.getRange({ start: [1, 0] })].map((e) => e.value.uuid), ['u-1', 'u-2']);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

s.run();
