// What starting a node costs: CPU of a `hedgerow serve` child (the test profile's settings: one
// thread per pool, no GeoIP) from its spawn until it answers /_readiness and the threads it
// started have settled (SETTLE_MS later), by thread: the main thread, each log consumer's
// thread (they name themselves), and the rest (V8's compiler and collector threads, pools).
// Every server a test starts pays this, so it is most of the suite's CPU (issue 25); a
// deployment pays it at each restart. With --baseline DIR, an older built checkout runs
// alternately with this one, so both see the same machine.
//
//   node dist/bench/start-cost.js [--runs N] [--baseline /work/wt-prev] [--settle-ms 3000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { root } from './ceiling.js';
import { initDataDir, startServe } from './serve-child.js';
import { cpuOf, threadNames, threadsCpu } from './proc.js';
import { TEST_PROFILE_ENV } from '../test/helpers/profile.js';

const { values: args } = parseArgs({ options: { runs: { type: 'string' }, baseline: { type: 'string' }, 'settle-ms': { type: 'string' } } });
const RUNS = Number(args.runs ?? 5);
const SETTLE_MS = Number(args['settle-ms'] ?? 3_000);
// The test profile as the tests' servers run it (a baseline checkout is given the same).
const PROFILE_ENV = TEST_PROFILE_ENV as Record<string, string>;

interface Sample { total: number; byName: Map<string, number> }

async function once(checkout: string): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hedgerow-start-'));
  try {
    initDataDir(dataDir, checkout);
    const serve = await startServe({ dataDir, env: PROFILE_ENV, checkout });
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    const names = threadNames(serve.pid);
    const byName = new Map<string, number>();
    for (const [tid, us] of threadsCpu(serve.pid)) {
      // Consumer threads name themselves; every other thread is "node".
      const own = names.get(tid);
      const name = tid === serve.pid ? 'main' : own !== undefined && own !== 'node' ? own : 'other threads';
      byName.set(name, (byName.get(name) ?? 0) + us);
    }
    const { total } = cpuOf(serve.pid);
    await serve.stop();
    return { total, byName };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const checkouts = [root, ...(args.baseline ? [args.baseline] : [])];
const samples = new Map<string, Sample[]>(checkouts.map((c) => [c, []]));
for (let i = 0; i < RUNS; i++) for (const c of checkouts) samples.get(c)!.push(await once(c));

const names = [...new Set([...samples.values()].flatMap((s) => s.flatMap((x) => [...x.byName.keys()])))].sort();
console.log(`start-cost: ${RUNS} starts per checkout, alternating; CPU in ms until ready + ${SETTLE_MS} ms (median)\n`);
console.log(`| checkout | total | ${names.join(' | ')} |`);
console.log(`|---|---:|${names.map(() => '---:').join('|')}|`);
for (const [c, s] of samples) {
  const cols = names.map((n) => (median(s.map((x) => x.byName.get(n) ?? 0)) / 1000).toFixed(0));
  console.log(`| ${c} | ${(median(s.map((x) => x.total)) / 1000).toFixed(0)} | ${cols.join(' | ')} |`);
}
