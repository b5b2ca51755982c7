// Watches a server in another process while a test works it: probes /_liveness every
// `everyMs` (each probe's answer time, so a blocked event loop shows) and samples the
// process's resident memory from /proc. The watcher runs in a thread of its own, so
// the test's own work (building and sending large bodies, its garbage collections) is
// not mistaken for the server's.
import { Worker } from 'node:worker_threads';

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
