// The messages a replica answers a query with over NATS (src/insights/nats-protocol.ts):
// each kind reads back as written, and a response cut into parts at any byte (inside a
// multi-byte character too) joins back whole.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeReplicaMessage, encodeReplicaMessage, joinParts, responseParts, type ReplicaMessage } from '../../src/insights/nats-protocol.js';
import type { QueryResponse } from '../../src/insights/run.js';

const p = suite('insights over NATS: replica messages');

p('every message kind reads back as written; an unknown tag or an empty message is null', () => {
  const messages: ReplicaMessage[] = [
    { type: 'accepted', replica: 'host:/data' },
    { type: 'running' },
    { type: 'behind', replica: 'r', position: 42 },
    { type: 'part', data: new Uint8Array([1, 2, 3]) },
    { type: 'done', replica: 'r', position: 7 },
    { type: 'failed', failure: { message: 'bad interval', attr: 'interval', invalid: true, cancelled: false } },
    { type: 'gone' },
  ];
  for (const m of messages) {
    const back = decodeReplicaMessage(encodeReplicaMessage(m));
    if (m.type === 'part') assert.equal([...(back as { data: Uint8Array }).data], [...m.data]);
    else assert.equal(back, m);
  }
  assert.is(decodeReplicaMessage(new Uint8Array(0)), null);
  assert.is(decodeReplicaMessage(Buffer.from('z{}')), null);
});

p('a response in parts of any size joins back whole', () => {
  const response: QueryResponse = { kind: 'EventsQuery', results: [['é'.repeat(1000), 'ü€'.repeat(333)]], timezone: 'Europe/Paris' };
  for (const size of [1, 2, 3, 7, 100, 1_000_000]) {
    const parts = responseParts(response, size);
    assert.ok(parts.every((part) => part.length <= size));
    const wire = parts.map((data) => decodeReplicaMessage(encodeReplicaMessage({ type: 'part', data })) as { data: Uint8Array });
    assert.equal(joinParts(wire.map((w) => w.data)), response);
  }
});

p.run();
