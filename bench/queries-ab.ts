// Two builds' answers to the same insight queries on one store, alternating: the planner's
// cost with everything else equal (same data, same DuckDB, same process). The store is one
// bench/insights.js kept with --keep DIR. Each query runs once per build to warm up, then
// `--rounds` times per build, the order alternating by round, with the bare scan of
// bench/insights beside it; the answers of the two builds must be the same, or it says so.
//   node dist/bench/queries-ab.js --store DIR --baseline OTHER_CHECKOUT [--rounds 7] [--only TEXT]
// OTHER_CHECKOUT is a built checkout (a `git worktree` of the merge-base, after `npx tsc`).
import { parseArgs } from 'node:util';
import { resolve } from 'node:path';

const { values: args } = parseArgs({ options: {
  store: { type: 'string' }, baseline: { type: 'string' }, rounds: { type: 'string', default: '7' }, only: { type: 'string' },
} });
if (!args.store || !args.baseline) throw new Error('--store DIR and --baseline CHECKOUT are required');

// Same as bench/insights.ts's, over its generated events.
const QUERIES: Record<string, unknown> = {
  'paths (all events, 30 days)': { kind: 'PathsQuery', dateRange: { date_from: '-30d' }, pathsFilter: {} },
  'paths ($pageview URLs, 7 days)': { kind: 'PathsQuery', dateRange: { date_from: '-7d' }, pathsFilter: { includeEventTypes: ['$pageview'] } },
  'paths from a start point (30 days)': { kind: 'PathsQuery', dateRange: { date_from: '-30d' }, pathsFilter: { startPoint: 'added_to_cart' } },
  'paths between two points (30 days)': { kind: 'PathsQuery', dateRange: { date_from: '-30d' }, pathsFilter: { startPoint: '$autocapture', endPoint: 'signed_up', stepLimit: 4 } },
  'daily DAU ($pageview, 90 days)': { kind: 'TrendsQuery', dateRange: { date_from: '-90d' }, interval: 'day', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }] },
  '3-step funnel (30 days)': { kind: 'FunnelsQuery', dateRange: { date_from: '-30d' }, series: ['$pageview', 'added_to_cart', 'signed_up'].map((event) => ({ kind: 'EventsNode', event })) },
};

type Run = (db: unknown, query: unknown, ctx: unknown) => Promise<{ results: unknown }>;
const build = async (root: string) => ({
  runQuery: (await import(resolve(root, 'dist/src/insights/run.js'))).runQuery as Run,
  openColumnar: (await import(resolve(root, 'dist/src/insights/columnar/database.js'))).openColumnar,
});
const head = await build(resolve(process.cwd()));
const base = await build(args.baseline);
const db = await head.openColumnar({ dir: args.store });
const ctx = { projectId: 1, timezone: 'UTC', weekStart: 0, nowMs: Date.now() };
const scan = { parts: ["SELECT count(*) FROM events WHERE event = '$pageview'"] };
const plain = (_: string, v: unknown) => (typeof v === 'bigint' ? Number(v) : v);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log(`Store ${args.store}; this checkout against ${args.baseline}; ${args.rounds} rounds per build, alternating.`);
console.log('| query | this p50 ms | baseline p50 ms | this ÷ baseline | scan p50 ms | answers |\n|---|---:|---:|---:|---:|---|');
for (const [name, query] of Object.entries(QUERIES)) {
  if (args.only && !name.includes(args.only)) continue;
  const ms: Record<'head' | 'base' | 'scan', number[]> = { head: [], base: [], scan: [] };
  const answers = { head: '', base: '' };
  let same = true;
  for (let round = -1; round < Number(args.rounds); round++) {
    const order = round % 2 === 0 ? (['head', 'base'] as const) : (['base', 'head'] as const);
    for (const which of order) {
      const t = performance.now();
      const r = await (which === 'head' ? head : base).runQuery(db, query, ctx);
      if (round >= 0) ms[which].push(performance.now() - t);
      answers[which] = JSON.stringify(r.results, plain);
    }
    const t = performance.now();
    await (db as { query(s: unknown): Promise<unknown> }).query(scan);
    if (round >= 0) ms.scan.push(performance.now() - t);
    same &&= answers.head === answers.base;
  }
  const [h, b] = [median(ms.head), median(ms.base)];
  console.log(`| ${name} | ${h.toFixed(0)} | ${b.toFixed(0)} | ${(h / b).toFixed(2)} | ${median(ms.scan).toFixed(0)} | ${same ? 'same' : 'DIFFERENT'} |`);
}
await (db as { close(): Promise<void> }).close();
