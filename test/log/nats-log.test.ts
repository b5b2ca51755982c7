// The NATS JetStream log passes the event log contract against a real nats-server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { captureCodec } from '../../src/capture/frames.js';
import { connect, type NatsConnection } from 'nats';
import { createNatsLog, createNatsLogReader, pack, STREAM } from '../../src/log/nats-log.js';
import type { EventLog, LogReader } from '../../src/log/types.js';
import { DEFAULT_TIMINGS, overNats, type NatsCluster } from '../../src/cluster/index.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { runLogContract } from './contract.js';
import { logEvents } from '../helpers/log-events.js';
import { eventually } from '../helpers/wait.js';

// nats-server's default max_payload.
const MAX_PAYLOAD = 1024 * 1024;

const nats = natsServerForSuite();
const handles = clusterHandles();
// Each log or reader is a node of its own (a cluster handle, which makes the stream when missing).
const node = async (url: string): Promise<NatsCluster> => {
  const cluster = await handles.open(url, { role: 'command' });
  if (!overNats(cluster)) throw new Error('not over NATS');
  return cluster;
};
const openLog = async (url: string) => createNatsLog((await node(url)).jetstream, captureCodec);
const openReader = async (url: string) => createNatsLogReader((await node(url)).jetstream, captureCodec, DEFAULT_TIMINGS.stallMs);

async function deleteStream(url: string): Promise<void> {
  const nc: NatsConnection = await connect({ servers: url });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(STREAM).catch(() => false);
  await nc.close();
}

runLogContract({
  name: 'NATS JetStream',
  maxEntryBytes: MAX_PAYLOAD,
  setup: () => nats.start(),
  teardown: () => nats.close(),
  async fresh() {
    const server = nats.server();
    await deleteStream(server.url);
    const opened: Array<EventLog | LogReader> = [];
    const track = <T extends EventLog | LogReader>(x: T) => { opened.push(x); return x; };
    return {
      openLog: async () => track(await openLog(server.url)),
      openReader: async () => track(await openReader(server.url)),
      writerArgs: ['nats', server.url],
      // The acknowledgement must also survive the server dying right after giving it.
      async crash() {
        await server.stop({ crash: true });
        await server.restart();
      },
      async dispose() {
        for (const x of opened) await x.close();
        await handles.closeAll();
      },
    };
  },
});

// Several nodes append to one stream: each node's idea of the stream's end (what its lag
// metrics are measured against) follows the others' appends too, not only its own.
const shared = suite('NATS log: one stream, two nodes');
shared.before(() => nats.start());
shared.after(() => nats.close());

shared("a node's last sequence follows the appends of another node", async () => {
  const server = nats.server();
  await deleteStream(server.url);
  const a = await openLog(server.url);
  const b = await openLog(server.url);
  try {
    await a.append(logEvents(3));
    await a.append(logEvents(2));
    assert.ok(a.lastSeq() >= 2, `a at ${a.lastSeq()}`);
    await eventually(async () => b.lastSeq() === a.lastSeq(), 10_000);
  } finally {
    await a.close();
    await b.close();
    await handles.closeAll();
  }
});

shared.run();

// An operation frame (docs/decisions/0032) travels in a message of its own: a node of an
// older version, which cannot read it, sets aside that message alone, not the capture
// frames appended in the same turn.
const packing = suite('NATS log: packing a commit into messages');

packing('frames share messages up to the limit, and an operation frame stands alone', () => {
  const events = (n: number) => captureCodec.eventsFrame(logEvents(n));
  const op = captureCodec.operationFrame({ uuid: '0190b4b4-0000-7000-8000-0000000000aa', project_id: 1, kind: 'persons.delete', payload: { uuid: 'x' } });
  const kinds = (messages: Buffer[]) => messages.map((m) => captureCodec.decode(m).length);
  assert.equal(kinds(pack([events(2), events(3)], MAX_PAYLOAD)), [5]);
  const mixed = pack([events(2), op, events(3), events(1)], MAX_PAYLOAD);
  assert.is(mixed.length, 3);
  assert.equal(kinds(mixed), [2, 0, 4]);
  // The middle message is the operation's frame and nothing else.
  assert.ok(mixed[1].equals(Buffer.concat([Buffer.from([0x01]), ...op.chunks])));
  // Past the limit, frames go on in the next message as before.
  const big = events(200);
  assert.is(pack([big, big, big], big.bytes * 2 + 10).length, 2);
});

packing.run();
