// Supervises one consumer's worker thread (workers/consumer.ts): starts it, restarts it
// with backoff when it dies (a store failure, a lost log), and stops it cleanly on
// shutdown. Every consumer has a thread of its own (docs/decisions/0014).
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../logger.js';
import { leaveLoading, newPhase, TERMINATING, type ConsumerThreadData, type ThreadMessage } from './thread.js';
import type { FailureKind } from './ladder.js';

const HEALTHY_AFTER_MS = 60_000;
// A consumer whose thread died this many times without running healthily in between is
// crash-looping: it does not count as running (readiness) in the moments its thread is up
// between deaths, so readiness does not flap, until its thread has stayed up for
// RECOVERED_AFTER_MS. One death (a transient failure) does not take the node out: it counts
// as running again once its thread is back. (Without the second bound a node whose
// consumers died twice in a one-second NATS outage answered 503 for a minute after it had
// recovered: seen under load in test/cluster/nats-restart.)
const CRASH_LOOP_RESTARTS = 2;
const RECOVERED_AFTER_MS = 5_000;
// How long a stopping thread gets to finish its step before it is terminated. Generous:
// the threads run at a lower CPU priority and a loaded machine can starve one for seconds
// (seen: over 5 s while a thread was still starting), and terminating a thread inside
// native code that throws C++ exceptions (DuckDB's bindings) aborts the whole process.
// A thread still loading its modules is not waited for (./thread.ts LOADING).
const STOP_GRACE_MS = 30_000;
const WORKER_URL = new URL('../../../workers/consumer.js', import.meta.url);

export interface SupervisedConsumer {
  name: string;
  running(): boolean;
  stop(): Promise<void>;
}

export function superviseConsumer(data: ConsumerThreadData, log: Logger, onFailure: (kind: FailureKind) => void = () => {}): SupervisedConsumer {
  const { name } = data.consumer;
  // The thread while it is alive; null between a death and its restart.
  let worker: Worker | null = null;
  // That thread's phase (./thread.ts).
  let phase = newPhase();
  let stopping = false;
  let restarts = 0;
  let running = false;
  // When the thread now running came online (performance.now()).
  let onlineAt = 0;

  function start() {
    phase = newPhase();
    const heap = data.consumer.heapMb;
    const w = new Worker(WORKER_URL, { workerData: { thread: data, phase }, ...(heap === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: heap } }) });
    worker = w;
    w.on('online', () => {
      running = true;
      onlineAt = performance.now();
      // A worker that stays up for a while has recovered: later failures start the backoff afresh.
      setTimeout(() => { if (worker === w && running) restarts = 0; }, HEALTHY_AFTER_MS).unref();
    });
    w.on('error', (err) => log.error('consumer worker failed', { consumer: name, error: err.stack ?? err.message }));
    w.on('message', (m: ThreadMessage) => {
      if (typeof m !== 'object') return;
      if ('failed' in m) onFailure(m.failed);
      else if ('consumer' in m.setAside) log.error('an event the consumer could not apply: set aside, see `hedgerow dead-letters`', { ...m.setAside });
      else log.error('log record could not be decoded: set aside, see `hedgerow dead-letters`', { consumer: name, ...m.setAside });
    });
    w.on('exit', (code) => {
      running = false;
      if (worker === w) worker = null;
      if (stopping) return;
      onFailure('restart');
      const delay = Math.min(30_000, 100 * 2 ** Math.min(restarts++, 8));
      log.warn('consumer worker exited, restarting', { consumer: name, code, delay_ms: delay });
      setTimeout(() => { if (!stopping) start(); }, delay).unref();
    });
  }

  async function stopThread(): Promise<void> {
    stopping = true;
    const w = worker;
    if (!w) return;
    const t0 = performance.now();
    w.once('exit', () => log.debug('consumer stopped', { consumer: name, ms: Math.round(performance.now() - t0) }));
    // Still loading modules: it will open nothing, and ends by itself once its imports are
    // done. It is not terminated meanwhile: a thread terminated inside a native add-on's
    // load (lmdb-js registering itself) aborts the whole process (seen in CI-like runs as
    // "FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw" when a node closed as it
    // started); ../../pools/loading.ts waits for the same reason.
    const loading = leaveLoading(phase, TERMINATING);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        log.warn('consumer thread did not stop within its grace: terminated', { consumer: name, grace_ms: STOP_GRACE_MS });
        void w.terminate();
      }, STOP_GRACE_MS);
      w.once('exit', () => { clearTimeout(timer); resolve(); });
      if (!loading) w.postMessage('stop');
    });
  }

  start();
  // One stop, however many ask for it (the node's stop begins every thread's at once; a
  // claim given up later waits for the same).
  let stopped: Promise<void> | null = null;
  return {
    name,
    running: () => running && (restarts < CRASH_LOOP_RESTARTS || performance.now() - onlineAt >= RECOVERED_AFTER_MS),
    stop: () => (stopped ??= stopThread()),
  };
}
