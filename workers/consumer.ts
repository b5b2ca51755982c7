// Worker thread of one log consumer (src/log/consumers/thread.ts), off the main thread
// and at a lower CPU priority than capture.
import { parentPort, workerData } from 'node:worker_threads';
import { runConsumerThread, type ConsumerThreadData } from '../src/log/consumers/thread.js';
import { lowerThisThreadPriority, nameThisThread } from '../src/log/consumers/priority.js';
import { captureCodec } from '../src/capture/frames.js';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { collectWhenIdle } from '../src/memory/index.js';

collectWhenIdle();

const controller = new AbortController();
parentPort?.on('message', (m) => { if (m === 'stop') controller.abort(); });
// Every domain's tables: the consumer this thread runs may be any domain's.
const openAll = (dataDir: string) => openStore(dataDir, tables);
// The supervisor logs and counts what this thread reports: it has no logger of its own.
const { thread, phase } = workerData as { thread: ConsumerThreadData; phase: Int32Array };
lowerThisThreadPriority(thread.consumer.nice);
nameThisThread(thread.consumer.name);
await runConsumerThread(thread, captureCodec, openAll, controller.signal, (message) => parentPort?.postMessage(message), phase);
parentPort?.postMessage('stopped');
// The message listener would keep this thread alive after its work is done.
parentPort?.close();
