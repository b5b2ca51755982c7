// Loaded into every thread of a server under measurement (NODE_OPTIONS=--import=<this file>,
// which worker threads inherit): each second each thread writes its own heap figures to
// $HEDGEROW_MEMORY_PROBE_DIR/<pid>-<threadId>.json, so bench/burst-memory.ts can tell
// which thread's heap holds what. Process-wide figures (RSS, malloc's arenas) come from
// /proc, not from here. When the bench touches <dir>/gc, every thread collects fully once
// before its next report: what survives is live, the rest was garbage awaiting a
// collection (V8's gc function is taken from a context made while --expose-gc is set for a
// moment, as src/memory/idle-collect.ts does). Touching <dir>/snapshot-<thread name> has
// that thread write a heap snapshot into <dir> (what holds its buffers).
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { threadId, workerData } from 'node:worker_threads';
import { getHeapSpaceStatistics, getHeapStatistics, setFlagsFromString, writeHeapSnapshot } from 'node:v8';
import { runInNewContext } from 'node:vm';

const dir = process.env.HEDGEROW_MEMORY_PROBE_DIR;
if (dir !== undefined) {
  const MB = 1024 * 1024;
  const mb = (n: number) => Math.round(n / MB);
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  let collectedFor = 0;
  let snapshotFor = 0;
  const report = () => {
    let asked = 0;
    try {
      asked = statSync(`${dir}/gc`).mtimeMs;
    } catch {
      // not asked
    }
    let collected = false;
    if (asked > collectedFor) {
      collectedFor = asked;
      gc();
      collected = true;
    }
    const h = getHeapStatistics();
    const u = process.memoryUsage();
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, [mb(s.space_used_size), mb(s.space_size)]]));
    let name = '?';
    try {
      name = readFileSync('/proc/thread-self/comm', 'utf8').trim();
    } catch {
      // not Linux
    }
    // Pool threads are all named "node": their workerData's keys tell which pool.
    const data = workerData !== null && typeof workerData === 'object' ? Object.keys(workerData as object).join(',') : '';
    try {
      const wanted = statSync(`${dir}/snapshot-${name}`).mtimeMs;
      if (wanted > snapshotFor) {
        snapshotFor = wanted;
        writeHeapSnapshot(`${dir}/${name}-${threadId}.heapsnapshot`);
      }
    } catch {
      // not asked
    }
    // Written aside and renamed, so a reader never sees half a report.
    const file = `${dir}/${process.pid}-${threadId}.json`;
    writeFileSync(`${file}.next`, JSON.stringify({
      threadId, name, data, at: Date.now(), collected,
      heapUsed: mb(u.heapUsed), heapTotal: mb(u.heapTotal), external: mb(u.external), arrayBuffers: mb(u.arrayBuffers),
      mallocedMemory: mb(h.malloced_memory), peakMalloced: mb(h.peak_malloced_memory), heapLimit: mb(h.heap_size_limit),
      spaces,
    }));
    renameSync(`${file}.next`, file);
  };
  setInterval(report, 1000).unref();
  report();
}
