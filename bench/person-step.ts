// The event store's person step alone (src/persons/step.ts: an event's person looked up in
// the consumer's cache, its changes worked out and applied), on load-1m's events in
// load-1m's order (`--distinct` ids, each event's id (i * 7919) mod distinct), every person
// already known: the steady state of a backlog, where the persons cache answers each event.
// A store per tree is filled first (untimed: every person created and written); then each
// round runs `--events` events through the step, prepare and commit, in transactions of
// `--per-commit`, writing no event rows. CPU µs per event (process user+system). With
// `--baseline DIR` (another built checkout), that tree's step runs over its own store in the
// same process, rounds alternating which goes first.
//   node dist/bench/person-step.js [--events 1000000] [--distinct 100000] [--per-commit 4000] [--rounds 5] [--baseline DIR]
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { tempDir } from '../test/helpers/temp-dir.js';
import type { CapturedEvent } from '../src/log/types.js';
import type { Store } from '../src/tables.js';
import type { EventPreparation } from '../src/persons/index.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '1000000' },
  distinct: { type: 'string', default: '100000' },
  'per-commit': { type: 'string', default: '4000' },
  rounds: { type: 'string', default: '5' },
  baseline: { type: 'string' },
} });
const EVENTS = Number(args.events);
const DISTINCT = Number(args.distinct);
const PER_COMMIT = Number(args['per-commit']);
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];

interface Tree {
  name: string;
  store: Store;
  dir: string;
  start: () => EventPreparation;
}

async function openTree(name: string, root: string): Promise<Tree> {
  const at = (p: string) => pathToFileURL(resolve(root, 'dist', p)).href;
  const { openStore } = await import(at('src/store/index.js')) as typeof import('../src/store/index.js');
  const { tables } = await import(at('src/tables.js')) as typeof import('../src/tables.js');
  const { createPersonStep } = await import(at('src/persons/index.js')) as typeof import('../src/persons/index.js');
  const dir = tempDir(`bench-person-step-${name.replace(/\W/g, '')}`);
  const store = openStore(dir, tables) as Store;
  return { name, store, dir, start: createPersonStep(store, Date.now) };
}

// load-1m's events, from event `from` on.
function events(from: number, count: number): CapturedEvent[] {
  const out: CapturedEvent[] = [];
  const t0 = Date.UTC(2026, 10, 28);
  for (let i = from; i < from + count; i++) {
    const p = (i * 7919) % DISTINCT;
    const ts = new Date(t0 + i).toISOString();
    out.push({
      uuid: randomUUID(), event: '$pageview', distinct_id: `user-${p}`, timestamp: ts, project_id: 1, ip: null, now: ts, sent_at: null, historical: false,
      properties: { $browser: BROWSERS[p % 4], $current_url: `https://example.com/p/${i % 100}`, $session_id: `s-${p}`, plan: p % 3 ? 'free' : 'paid' },
    });
  }
  return out;
}

// `count` events through the tree's step from event `from`; the CPU µs per event of the step.
async function pass(tree: Tree, from: number, count: number): Promise<number> {
  let used = 0;
  for (let i = from; i < from + count; i += PER_COMMIT) {
    const batch = events(i, Math.min(PER_COMMIT, from + count - i));
    await tree.store.root.transaction(() => {
      const before = process.cpuUsage();
      const step = tree.start();
      for (const ev of batch) {
        step.prepare(ev);
        step.commit();
      }
      step.finish();
      const d = process.cpuUsage(before);
      used += d.user + d.system;
    });
  }
  return used / count;
}

const trees = [await openTree('this tree', '.')];
if (args.baseline) trees.push(await openTree('baseline', args.baseline));
try {
  // Every person created and written, then seen once more (the cache as a backlog finds it).
  for (const t of trees) await pass(t, 0, 2 * DISTINCT);
  console.log(`${EVENTS} events per round, ${DISTINCT} distinct ids (every person known), transactions of ${PER_COMMIT}, ${args.rounds} rounds`);
  const ratios: number[] = [];
  for (let r = 0; r < Number(args.rounds); r++) {
    const order = r % 2 === 0 ? trees : [...trees].reverse();
    const cpu = new Map<string, number>();
    for (const t of order) cpu.set(t.name, await pass(t, 2 * DISTINCT + r * EVENTS, EVENTS));
    const line = trees.map((t) => `${t.name} ${cpu.get(t.name)!.toFixed(2)}`).join(', ');
    if (trees.length === 2) ratios.push(cpu.get('this tree')! / cpu.get('baseline')!);
    console.log(`round ${r + 1}: ${line} µs/event${trees.length === 2 ? `, ratio ${ratios[ratios.length - 1].toFixed(3)}` : ''}`);
  }
  if (ratios.length > 0) {
    const sorted = [...ratios].sort((a, b) => a - b);
    console.log(`ratio this tree / baseline: median ${sorted[Math.floor(sorted.length / 2)].toFixed(3)} (${sorted[0].toFixed(3)}-${sorted[sorted.length - 1].toFixed(3)})`);
  }
} finally {
  for (const t of trees) {
    await t.store.close();
    rmSync(t.dir, { recursive: true, force: true });
  }
}
