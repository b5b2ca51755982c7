// A webhook invocation's Hog steps in the destinations consumer's thread (issue 26): its
// prepare step and first slice (src/destinations/runtime/in-thread.ts startInThread) and the
// program resumed with its answer (resumeInThread), on posthog-js-like events
// (bench/sdk-traffic) with a person; the short mix's four fields or the whole event and
// person. Per invocation: µs of this thread's CPU and the bytes it allocates (new space
// used, read around batches of 20 between which no scavenge ran; the median batch). With
// `--baseline DIR`, the same steps of another tree's build (DIR/dist) alternate with this
// tree's in one process, so their ratio holds on a loaded machine.
//   node dist/bench/in-thread-slices.js [--rounds 5] [--invocations 4000] [--baseline /work/other-tree]
import { getHeapSpaceStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createTraffic } from './sdk-traffic.js';

const { values: args } = parseArgs({ options: {
  rounds: { type: 'string', default: '5' }, invocations: { type: 'string', default: '4000' }, baseline: { type: 'string' },
} });
const ROUNDS = Number(args.rounds);
const N = Number(args.invocations);
const KINDS = ['short', 'whole'] as const;
type Kind = (typeof KINDS)[number];

// The steps of the tree whose build is at `dist`: a function running `n` invocations of a kind.
async function stepsOf(dist: string): Promise<(kind: Kind, n: number) => number> {
  const load = (path: string) => import(pathToFileURL(join(dist, path)).href);
  await (await load('src/hog/index.js')).initHog();
  const { validateHogFunction } = await load('src/destinations/api/validate.js');
  const { runnable } = await load('src/destinations/runtime/runnable.js');
  const { eventHere, startInThread, resumeInThread } = await load('src/destinations/runtime/in-thread.js');
  const validation = { projectId: 1, timeZone: 'UTC', now: Date.now(), siteUrl: 'http://localhost:8000', actions: {}, testAccountFilters: [], cohorts: {} };
  const webhook = (body: unknown, id: string) => runnable({
    ...validateHogFunction({ enabled: true, template_id: 'template-webhook', inputs: { url: { value: 'http://127.0.0.1:9/hook' }, body: { value: body } } }, null, validation),
    id, project_id: 1, created_at: '', created_by: null, updated_at: '', watcher_epoch: 0,
  });
  const fns: Record<Kind, unknown> = {
    short: webhook({ event: '{event.event}', uuid: '{event.uuid}', url: '{event.properties.$current_url}', person: '{person.id}' }, 'short'),
    whole: webhook({ event: '{event}', person: '{person}' }, 'whole'),
  };
  const traffic = createTraffic({ token: 't', devices: 1000, newDeviceShare: 0.02, seed: 26 });
  const project = { id: 1, name: 'Default', url: 'http://localhost:8000/project/1' };
  const contexts = Array.from({ length: 500 }, (_, i) => {
    const e = traffic.next(Date.now() + i);
    return {
      project, groups: {},
      event: { uuid: e.uuid, event: e.event, distinct_id: String(e.properties.distinct_id), properties: e.properties, timestamp: e.timestamp, elements_chain: '' },
      person: { id: `p${i}`, properties: { email: `u${i}@example.com`, plan: 'pro', n: i } },
    };
  });
  const answer = { status: 200, body: { ok: true } };
  return (kind, n) => {
    let answered = 0;
    for (let i = 0; i < n; i++) {
      const here = startInThread(fns[kind], eventHere(contexts[i % contexts.length]), true);
      if (here?.program && resumeInThread(here.program, answer) !== null) answered++;
    }
    return answered;
  };
}

const newSpaceUsed = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;

function measure(run: (kind: Kind, n: number) => number, kind: Kind): { us: number; bytes: number } {
  const perBatch: number[] = [];
  for (let i = 0; i < 60; i++) {
    const before = newSpaceUsed();
    run(kind, 20);
    const after = newSpaceUsed();
    if (after > before) perBatch.push((after - before) / 20);
  }
  perBatch.sort((a, b) => a - b);
  const cpu = process.cpuUsage();
  const answered = run(kind, N);
  const used = process.cpuUsage(cpu);
  if (answered !== N) throw new Error(`${N - answered} of ${N} invocations were not answered in the thread`);
  return { us: (used.user + used.system) / N, bytes: perBatch[perBatch.length >> 1] };
}

const here = join(dirname(fileURLToPath(import.meta.url)), '..');
const trees: [string, (kind: Kind, n: number) => number][] = [['this tree', await stepsOf(here)]];
if (args.baseline) trees.push(['baseline', await stepsOf(join(args.baseline, 'dist'))]);
for (const [, run] of trees) for (const kind of KINDS) run(kind, 2000);
console.log(`Node ${process.version}; ${N} invocations per figure; ${trees.map(([name]) => name).join(' and ')}${args.baseline ? ` (${args.baseline})` : ''}`);
for (let r = 1; r <= ROUNDS; r++) {
  const order = r % 2 === 1 ? trees : [...trees].reverse();
  const parts: string[] = [];
  for (const kind of KINDS) {
    for (const [name, run] of order) {
      const { us, bytes } = measure(run, kind);
      parts.push(`${kind}, ${name}: ${us.toFixed(1)} µs ${Math.round(bytes)} B`);
    }
  }
  console.log(`round ${r}: ${parts.join(' | ')}`);
}
