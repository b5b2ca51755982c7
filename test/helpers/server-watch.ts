// Watches a server in another process while a test works it: probes /_liveness every
// `everyMs` (each probe's answer time, so a blocked event loop shows) and samples the
// process's resident memory from /proc. The watcher runs in a thread of its own, so
// the test's own work (building and sending large bodies, its garbage collections) is
// not mistaken for the server's.
import { Worker } from 'node:worker_threads';
import * as assert from 'uvu/assert';

export interface WatchResult {
  slowestProbeMs: number;
  // When the slowest probe was sent (Date.now()), to tell which request it met.
  slowestAt: number;
  probes: number;
  failedProbes: number;
  startRssBytes: number;
  peakRssBytes: number;
}

export interface Watch {
  stop(): Promise<WatchResult>;
}

const WATCHER = `
const { parentPort, workerData: { url, pid, everyMs } } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const rss = () => { const m = /^VmRSS:\\s+(\\d+) kB$/m.exec(readFileSync('/proc/' + pid + '/status', 'utf8')); return m ? Number(m[1]) * 1024 : 0; };
let running = true, slowestAt = 0, slowest = 0, probes = 0, failed = 0, peak = rss();
const start = peak;
const sampler = setInterval(() => { peak = Math.max(peak, rss()); }, everyMs);
parentPort.once('message', () => { running = false; });
(async () => {
  while (running) {
    const started = performance.now();
    const at = Date.now();
    const status = await fetch(url + '/_liveness').then((r) => r.status, () => 0);
    const took = performance.now() - started;
    if (took > slowest) { slowest = took; slowestAt = at; }
    probes++;
    if (status !== 200) failed++;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  clearInterval(sampler);
  parentPort.postMessage({ slowestProbeMs: slowest, slowestAt, probes, failedProbes: failed, startRssBytes: start, peakRssBytes: Math.max(peak, rss()) });
})();
`;

export function watchServer(url: string, pid: number, everyMs = 25): Watch {
  const worker = new Worker(WATCHER, { eval: true, workerData: { url, pid, everyMs } });
  const result = new Promise<WatchResult>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const r = await result;
      await worker.terminate();
      return r;
    },
  };
}

/**
 * What a hostile suite asserts at its end: the watch's liveness probe answered every time
 * it asked, and none of the many answers the suite collected (`statuses`, more than 20) was a 5xx.
 */
export async function assertServedThroughout(watch: Watch, statuses: readonly number[]): Promise<void> {
  const seen = await watch.stop();
  assert.ok(seen.probes > 0);
  assert.is(seen.failedProbes, 0);
  assert.ok(statuses.length > 20);
  assert.ok(statuses.every((status) => status < 500), statuses.join(','));
}
