// The log reader's three walks over a record's frames (src/capture/frames.ts): decodeRecord (every
// consumer, per record), recordKeys (the event store's keys) and recordProjects (a consumer's
// skip test, from the headers alone), on capture records of 1 and of 100 events as
// bench/capture sends them. Reported: CPU ns per record, median over rounds, for this tree and,
// with `--baseline DIR`, another built checkout's frames.js in the same process, the two taking
// turns round by round (each first every other round), and the median of the rounds' ratios (this tree / baseline).
//   node dist/bench/record-read.js [--rounds 15] [--calls 20000] [--baseline DIR]
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as capture from './capture-path-subjects.js';

type Frames = typeof import('../src/capture/frames.js');

const { values: args } = parseArgs({ options: {
  rounds: { type: 'string', default: '15' }, calls: { type: 'string', default: '20000' }, baseline: { type: 'string' },
} });
const ROUNDS = Number(args.rounds);
const CALLS = Number(args.calls);

const event = (i: number) => ({
  event: '$pageview', distinct_id: `user-${i}`, timestamp: new Date().toISOString(),
  properties: { $current_url: 'https://example.com/pricing?ref=newsletter', $browser: 'Firefox', $os: 'Linux', $lib: 'bench', plan: 'pro' },
});
const frames = capture.subjects.find((s) => s.name === 'capture frames')!;
const query = new URLSearchParams();
const records = [
  { name: 'single', record: await frames.record(Buffer.from(JSON.stringify({ ...event(0), api_key: 'phc_bench' })), query, 1) },
  { name: 'batch of 100', record: await frames.record(Buffer.from(JSON.stringify({ api_key: 'phc_bench', batch: Array.from({ length: 100 }, (_, i) => event(i)) })), query, 1) },
];

const trees: { name: string; mod: Frames }[] = [{ name: 'this tree', mod: await import('../src/capture/frames.js') }];
if (args.baseline) trees.push({ name: 'baseline', mod: await import(join(resolve(args.baseline), 'dist/src/capture/frames.js')) as Frames });

const cpuNow = () => { const u = process.cpuUsage(); return u.user + u.system; };
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const walks: [string, (m: Frames, r: Buffer) => unknown][] = [
  ['decodeRecord', (m, r) => m.decodeRecord(r)], ['recordKeys', (m, r) => m.recordKeys(r)], ['recordProjects', (m, r) => m.recordProjects(r)],
];

console.log('| walk | record | ' + trees.map((t) => `${t.name} ns/record`).join(' | ') + (trees.length > 1 ? ' | ratio (median of rounds) |' : ' |'));
console.log('|---|---|' + trees.map(() => '---:|').join('') + (trees.length > 1 ? '---:|' : ''));
for (const [walk, fn] of walks) {
  for (const { name, record } of records) {
    const calls = name === 'single' ? CALLS : Math.max(1, CALLS / 20);
    const per = trees.map(() => [] as number[]);
    for (let r = 0; r < ROUNDS + 2; r++) {
      // Each tree goes first every other round.
      const order = r % 2 === 0 ? trees.map((_, k) => k) : trees.map((_, k) => trees.length - 1 - k);
      for (const k of order) {
        const start = cpuNow();
        for (let i = 0; i < calls; i++) fn(trees[k].mod, record);
        // The first two rounds warm up.
        if (r >= 2) per[k].push((cpuNow() - start) * 1000 / calls);
      }
    }
    const ratio = trees.length > 1 ? ` | ${median(per[0].map((x, i) => x / per[1][i])).toFixed(3)} |` : ' |';
    console.log(`| ${walk} | ${name} | ${per.map((p) => median(p).toFixed(0)).join(' | ')}${ratio}`);
  }
}
