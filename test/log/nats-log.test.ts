// The NATS JetStream log passes the event log contract against a real nats-server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { captureCodec } from '../../src/capture/frames.js';
import { connect, type NatsConnection } from 'nats';
import { createNatsLog, createNatsLogReader, STREAM } from '../../src/log/nats-log.js';
import type { EventLog, LogReader } from '../../src/log/types.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { runLogContract } from './contract.js';
import { logEvents } from '../helpers/log-events.js';
import { eventually } from '../helpers/server.js';

// nats-server's default max_payload.
const MAX_PAYLOAD = 1024 * 1024;

const nats = natsServerForSuite();

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
      openLog: async () => track(await createNatsLog({ codec: captureCodec, url: server.url })),
      openReader: async () => track(await createNatsLogReader({ codec: captureCodec, url: server.url })),
      writerArgs: ['nats', server.url],
      // The acknowledgement must also survive the server dying right after giving it.
      async crash() {
        await server.stop({ crash: true });
        await server.restart();
      },
      async dispose() {
        for (const x of opened) await x.close();
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
  const a = await createNatsLog({ codec: captureCodec, url: server.url });
  const b = await createNatsLog({ codec: captureCodec, url: server.url });
  try {
    await a.append(logEvents(3));
    await a.append(logEvents(2));
    assert.ok(a.lastSeq() >= 2, `a at ${a.lastSeq()}`);
    await eventually(async () => b.lastSeq() === a.lastSeq(), 10_000);
  } finally {
    await a.close();
    await b.close();
  }
});

shared.run();
