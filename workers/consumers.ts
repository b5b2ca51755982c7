// Worker thread running the log consumers (event store) off the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import { runConsumers, type ConsumerWorkerData } from '../src/pipeline/run-consumers.js';
import { lowerThisThreadPriority } from '../src/pipeline/priority.js';

lowerThisThreadPriority(10);

const controller = new AbortController();
parentPort?.on('message', (m) => { if (m === 'stop') controller.abort(); });
// The supervisor logs what was set aside: this thread has no logger of its own.
await runConsumers(workerData as ConsumerWorkerData, controller.signal, (quarantined) => parentPort?.postMessage({ quarantined }));
parentPort?.postMessage('stopped');
// The message listener would keep this thread alive after its work is done.
parentPort?.close();
