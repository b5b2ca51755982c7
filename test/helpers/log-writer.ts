// A child process that appends to a log as fast as it can and prints each event's
// uuid once its append has resolved, so a test can kill it at any moment and know
// exactly which events were acknowledged.
// usage: node log-writer.js lmdb <data dir> | nats <url>
import { captureCodec } from '../../src/capture/frames.js';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/tables.js';
import { createLmdbLog } from '../../src/log/lmdb-log.js';
import { createNatsLog } from '../../src/log/nats-log.js';
import { overNats } from '../../src/cluster/index.js';
import { clusterHandles } from './cluster-handle.js';
import type { EventLog } from '../../src/log/types.js';
import { logEvents } from './log-events.js';

const SINGLE_WRITERS = 16;
const BATCH_WRITERS = 4;
const BATCH_SIZE = 20;

async function open(kind: string | undefined, target: string | undefined): Promise<EventLog> {
  if (kind === 'lmdb' && target) return createLmdbLog(openStore(target, tables), captureCodec);
  if (kind === 'nats' && target) {
    const cluster = await clusterHandles().open(target, { role: 'command' });
    if (overNats(cluster)) return createNatsLog(cluster.jetstream, captureCodec);
  }
  throw new Error('usage: log-writer.js lmdb <data dir> | nats <url>');
}

async function writeForever(log: EventLog, size: number): Promise<never> {
  for (;;) {
    const events = logEvents(size);
    await log.append(events);
    process.stdout.write(events.map((e) => e.uuid).join('\n') + '\n');
  }
}

const log = await open(process.argv[2], process.argv[3]);
process.stdout.write('ready\n');
const writers = [
  ...Array.from({ length: SINGLE_WRITERS }, () => writeForever(log, 1)),
  ...Array.from({ length: BATCH_WRITERS }, () => writeForever(log, BATCH_SIZE)),
];
await Promise.all(writers);
