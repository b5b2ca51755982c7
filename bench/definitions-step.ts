// The definitions step's cost on the event store's pass (docs/decisions/0057), isolated: the
// same events committed by the event store's commitEvents with persons, with and without the
// definitions step, alternating, each round on a fresh store, in this one thread. Reported:
// CPU µs per event (process user+system over the commits) for each, and their ratio per
// round; and the step alone (its `see` over events whose keys it knows). The events are load-1m's $pageview (four properties; $browser and $current_url are
// lifted onto the person as $set/$set_once, so the step reads those too), from `--distinct` ids,
// in commits of `--per-commit`: after the first commit every key is known, as in a steady load.
//   node dist/bench/definitions-step.js [--events 100000] [--per-commit 1000] [--distinct 10000] [--rounds 5]
import { rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { commitEvents } from '../src/events/consumer.js';
import { eventDefinitionsStep } from '../src/events/store-consumer.js';
import { createPersonStep } from '../src/persons/index.js';
import type { CapturedEvent } from '../src/log/types.js';
import { tempDir } from '../test/helpers/temp-dir.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '100000' },
  'per-commit': { type: 'string', default: '1000' },
  distinct: { type: 'string', default: '10000' },
  rounds: { type: 'string', default: '5' },
} });
const EVENTS = Number(args.events);
const PER_COMMIT = Number(args['per-commit']);
const DISTINCT = Number(args.distinct);
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];

function events(): CapturedEvent[] {
  const out: CapturedEvent[] = [];
  const t0 = Date.UTC(2026, 10, 28);
  for (let i = 0; i < EVENTS; i++) {
    const p = i % DISTINCT;
    const ts = new Date(t0 + i * 10).toISOString();
    out.push({
      uuid: randomUUID(), event: '$pageview', distinct_id: `user-${p}`, timestamp: ts, project_id: 1, ip: null, now: ts, sent_at: null, historical: false,
      properties: { $browser: BROWSERS[p % 4], $current_url: `https://example.com/p/${i % 100}`, $session_id: `s-${p}`, plan: p % 3 ? 'free' : 'paid' },
    });
  }
  return out;
}

async function run(withDefinitions: boolean): Promise<number> {
  const dir = tempDir('bench-definitions');
  const store = openStore(dir, tables);
  try {
    const startPreparation = createPersonStep(store, Date.now);
    const startDefinitions = withDefinitions ? eventDefinitionsStep(store) : undefined;
    const all = events();
    const before = process.cpuUsage();
    for (let i = 0; i < all.length; i += PER_COMMIT) {
      await commitEvents(store, [{ events: all.slice(i, i + PER_COMMIT) }], { startPreparation, startDefinitions, position: { key: 'bench', seq: i }, now: Date.now });
    }
    const used = process.cpuUsage(before);
    return (used.user + used.system) / EVENTS;
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// The step alone over events whose keys it knows (the steady state): its `see` per event,
// inside one transaction that writes nothing.
async function stepAlone(): Promise<number> {
  const dir = tempDir('bench-definitions-alone');
  const store = openStore(dir, tables);
  try {
    const start = eventDefinitionsStep(store);
    // As the persons step leaves them: $browser and $current_url lifted into $set and $set_once.
    const all = events().map((e) => ({ ...e, properties: { ...e.properties,
      $set: { $browser: e.properties.$browser, $current_url: e.properties.$current_url },
      $set_once: { $initial_browser: e.properties.$browser, $initial_current_url: e.properties.$current_url } } }));
    const passes = 5;
    await store.root.transaction(() => {
      const learn = start();
      for (const e of all) learn.see(e);
      learn.finish();
    });
    let used = 0;
    await store.root.transaction(() => {
      const before = process.cpuUsage();
      for (let n = 0; n < passes; n++) {
        const p = start();
        for (const e of all) p.see(e);
        p.finish();
      }
      const d = process.cpuUsage(before);
      used = d.user + d.system;
    });
    return used / (all.length * passes);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const ratios: number[] = [];
console.log(`${EVENTS} events in commits of ${PER_COMMIT}, ${DISTINCT} distinct ids, ${args.rounds} rounds alternating`);
for (let r = 0; r < Number(args.rounds); r++) {
  // Alternate which goes first, so neither always runs on a warmer process.
  const order = r % 2 === 0 ? [false, true] : [true, false];
  const cpu: Record<string, number> = {};
  for (const w of order) cpu[String(w)] = await run(w);
  ratios.push(cpu.true / cpu.false);
  console.log(`round ${r + 1}: without ${cpu.false.toFixed(2)} µs/event, with ${cpu.true.toFixed(2)} µs/event, ratio ${(cpu.true / cpu.false).toFixed(3)}`);
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(`the step alone, every key known: ${(await stepAlone()).toFixed(3)} µs/event`);
console.log(`ratio with/without: median ${sorted[Math.floor(sorted.length / 2)].toFixed(3)} (${sorted[0].toFixed(3)}-${sorted[sorted.length - 1].toFixed(3)})`);
