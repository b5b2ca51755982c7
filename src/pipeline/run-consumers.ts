// What the consumer worker runs: open the store and the log reader the config
// names, then apply log entries until told to stop.
import { openStore } from '../store/env.js';
import { createLmdbLogReader } from '../log/lmdb-log.js';
import { createNatsLogReader } from '../log/nats-log.js';
import { runEventStore } from '../events/consumer-loop.js';
import { createPersonStep } from '../persons/step.js';
import type { QuarantinedRecord } from '../events/dead-letters.js';

export interface ConsumerWorkerData {
  dataDir: string;
  natsUrl: string | null;
  batchBytes: number;
  cachedPersons: number;
}

export async function runConsumers(data: ConsumerWorkerData, signal: AbortSignal, onQuarantined: (r: QuarantinedRecord) => void): Promise<void> {
  const store = openStore(data.dataDir);
  const reader = data.natsUrl ? await createNatsLogReader({ url: data.natsUrl }) : createLmdbLogReader(store, data.batchBytes);
  try {
    await runEventStore(store, reader, signal, { startPreparation: createPersonStep(store, Date.now, data.cachedPersons), onQuarantined });
  } finally {
    await reader.close();
    await store.close();
  }
}
