// Supervises the consumer worker thread: starts it, restarts it with backoff if it
// dies, and stops it cleanly on shutdown.
import { Worker } from 'node:worker_threads';
import type { Logger } from '../logger.js';
import type { ConsumerWorkerData } from './run-consumers.js';
import type { QuarantinedRecord } from '../events/dead-letters.js';

const HEALTHY_AFTER_MS = 60_000;
const WORKER_URL = new URL('../../workers/consumers.js', import.meta.url);

export function superviseConsumers(data: ConsumerWorkerData, log: Logger) {
  let worker: Worker | null = null;
  let stopping = false;
  let restarts = 0;
  let running = false;

  function start() {
    const w = new Worker(WORKER_URL, { workerData: data });
    worker = w;
    w.on('online', () => {
      running = true;
      // A worker that stays up for a while has recovered: later failures start the backoff afresh.
      setTimeout(() => { if (worker === w && running) restarts = 0; }, HEALTHY_AFTER_MS).unref();
    });
    w.on('error', (err) => log.error('consumer worker failed', { error: err.stack ?? err.message }));
    w.on('message', (m: { quarantined?: QuarantinedRecord } | string) => {
      if (typeof m === 'object' && m.quarantined) log.error('log record could not be decoded: set aside, see `hedgerow dead-letters`', { ...m.quarantined });
    });
    w.on('exit', (code) => {
      running = false;
      if (stopping) return;
      const delay = Math.min(30_000, 100 * 2 ** Math.min(restarts++, 8));
      log.warn('consumer worker exited, restarting', { code, delay_ms: delay });
      setTimeout(() => { if (!stopping) start(); }, delay).unref();
    });
  }

  start();
  return {
    running: () => running,
    async stop(): Promise<void> {
      stopping = true;
      const w = worker;
      if (!w) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { void w.terminate(); }, 5000);
        w.once('exit', () => { clearTimeout(timer); resolve(); });
        w.postMessage('stop');
      });
    },
  };
}
