// Piscina worker for capture bodies of more than 64 KiB, as sent or inflated (the
// capture pool, src/capture/tasks.ts, docs/decisions/0029): inflating, parsing and
// scanning them here keeps the HTTP thread answering while they take their hundreds of
// milliseconds.
import { workerData } from 'piscina';
import { lowerThisThreadPriority } from '../src/log/consumers/priority.js';
import { serveTasks } from '../src/pools/serve.js';
import { decodeRequest } from '../src/capture/decode-request.js';
import { ownedBuffer, type CaptureTasks, type CaptureWorkerData, type DecodeOutcome } from '../src/capture/tasks.js';

const limits = workerData as CaptureWorkerData;
// Below the HTTP thread, which must keep answering while a bomb is taken apart here;
// above the consumers (nice 10), since acknowledgements wait on this.
lowerThisThreadPriority(5);

export default serveTasks<CaptureTasks>({ decode: (task) => decodeRequest(task, limits, Date.now()) }, {
  transfer(output) {
    const o = output as DecodeOutcome;
    if (!('scanned' in o)) return [];
    const { text, droppedAt, uuids } = o.scanned;
    return [...ownedBuffer(text), ...ownedBuffer(droppedAt), ...ownedBuffer(uuids)];
  },
});
