// HogQL against hand-written DuckDB, in the same run on the same store (issue 28):
// `--events` generated events (default 2 M; the figure is 10 M) of two projects
// (9 in 10 in project 1) are loaded through the loader, then each pair is run once to warm
// up and `--runs` times measured, alternating: the HogQLQuery through runQuery (parse in
// this thread, compile, execute, shape) and the same question written by hand as SQL.
// Then HogQL inside a trends query against the planner's own form of the same question
// (a math, a breakdown, a property filter), alternating likewise: both through runQuery.
// Also parse + compile of a typical query alone, many times (the parser warm).
// And where a new text's parse time goes: the parser's start in a thread of its own (the
// parse pool, lazy against warmed), and per call in a warm parser by the text's size.
// And a new text's parse + compile by the fast parser (src/hogql/parser/) against the WASM
// parser (warm, in this thread), alternating, in the same run.
// `--only TEXT`: that HogQL query alone, one warm-up then --runs runs (each ms, p50), for an
// A/B of two builds on one kept store (each build's process in turn, alternating).
//   node dist/bench/hogql.js [--events 2000000] [--runs 7] [--threads N] [--keep DIR] [--parse-only] [--only TEXT] [--record]
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openColumnar } from '../src/insights/columnar/database.js';
import { createLoader } from '../src/insights/columnar/loader.js';
import type { ColumnarEvent } from '../src/insights/columnar/stage.js';
import { parseHogQLSelect } from '../src/insights/hogql.js';
import { compileHogQL } from '../src/insights/planner/hogql/compile.js';
import { raw } from '../src/insights/planner/sql.js';
import { runQuery } from '../src/insights/run.js';
import { xorshift } from '../test/helpers/xorshift.js';
import { percentile } from './fixed-rate.js';

const pct = (xs: number[], p: number) => percentile(Float64Array.from(xs).sort(), p);

const { values: args } = parseArgs({ options: {
  events: { type: 'string', default: '2000000' },
  runs: { type: 'string', default: '7' },
  threads: { type: 'string' },
  keep: { type: 'string' },
  record: { type: 'boolean', default: false },
  'parse-only': { type: 'boolean', default: false },
  only: { type: 'string' },
} });
const EVENTS = Number(args.events);
const RUNS = Number(args.runs);
const BATCH = 50_000;
const END = Date.parse('2026-11-25T00:00:00Z');
const DAY_MS = 86_400_000;
const EVENT_NAMES = ['$pageview', '$pageview', '$pageview', '$autocapture', 'signed_up', 'added_to_cart', 'purchase', '$identify'];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge'];
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};

function generate(from: number, to: number): ColumnarEvent[] {
  const rnd = xorshift(from + 7);
  const out: ColumnarEvent[] = [];
  for (let i = from; i < to; i++) {
    const p = Math.floor(100_000 * rnd() * rnd());
    const hex = (n: number, w: number) => n.toString(16).padStart(w, '0');
    out.push({
      project_id: i % 10 === 9 ? 2 : 1,
      uuid: `0192${hex(i >>> 16, 4)}-${hex(i & 0xffff, 4)}-7000-9000-${hex(i, 12)}`,
      event: EVENT_NAMES[Math.floor(rnd() * EVENT_NAMES.length)],
      distinct_id: `user-${p}`,
      person_id: `0190${hex(p >>> 16, 4)}-${hex(p & 0xffff, 4)}-7000-8000-${hex(p, 12)}`,
      timestamp: new Date(END - 30 * DAY_MS + Math.floor((i / EVENTS) * 30 * DAY_MS)).toISOString(),
      properties: { $browser: BROWSERS[p % BROWSERS.length], plan: p % 5 === 0 ? 'pro' : 'free', price: (p % 100) + 0.5 },
    });
  }
  return out;
}

const ms = (t0: number) => performance.now() - t0;
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

const TYPICAL = "select event, properties.$browser as browser, count() as c, uniq(distinct_id) from events where timestamp > now() - interval 7 day and properties.plan = 'pro' group by event, browser having c > 10 order by c desc limit 50";

// The parser's start and per-call cost, before anything else has loaded it in this process.
async function parserCosts(): Promise<void> {
  const { createHogQLParsePool } = await import('../src/hogql/index.js');
  const fresh = (i: number) => TYPICAL.replace('c > 10', `c > ${500 + i}`);
  say('Where a new text\'s parse goes (ms), through the pool\'s parse (the fast parser first: a text it reads never reaches the pool\'s thread, so the lazy pool starts no thread here):');
  say('');
  say('| step | ms |');
  say('|---|---:|');
  // A lazy pool: the first parse starts the thread, loads and instantiates the WASM module.
  const lazy = createHogQLParsePool();
  let t0 = performance.now();
  await lazy.parse('select', fresh(0));
  say(`| lazy pool: first parse (thread start, WASM load and instantiation, first parse) | ${fmt(ms(t0))} |`);
  t0 = performance.now();
  await lazy.parse('select', fresh(1));
  say(`| lazy pool: second new text | ${fmt(ms(t0))} |`);
  await lazy.close();
  // A warmed pool, as the aggregation worker starts it (HEDGEROW_HOGQL_PARSER=warm).
  const warm = createHogQLParsePool();
  t0 = performance.now();
  warm.warm();
  await warm.parse('expr', '1');
  say(`| warmed pool: start and warm-up, in the background | ${fmt(ms(t0))} |`);
  t0 = performance.now();
  await warm.parse('select', fresh(2));
  say(`| warmed pool: first query's new text | ${fmt(ms(t0))} |`);
  const n = 30;
  t0 = performance.now();
  for (let i = 0; i < n; i++) await warm.parse('select', fresh(10 + i));
  say(`| warmed pool: a new text, mean of ${n} | ${fmt(ms(t0) / n)} |`);
  t0 = performance.now();
  for (let i = 0; i < n; i++) await warm.parse('select', TYPICAL);
  say(`| warmed pool: the same text again (no cache in the pool), mean of ${n} | ${fmt(ms(t0) / n)} |`);
  const sizes: [string, string][] = [
    ['select 1', 'select 1'],
    ['select event from events', 'select event from events'],
    ['select event, count() from events group by event', 'select event, count() from events group by event'],
    [`the typical query (${TYPICAL.length} characters)`, TYPICAL],
  ];
  for (const [name, text] of sizes) {
    t0 = performance.now();
    for (let i = 0; i < n; i++) await warm.parse('select', text);
    say(`| warmed pool: \`${name}\`, mean of ${n} | ${fmt(ms(t0) / n)} |`);
  }
  await warm.close();
  say('');
}

async function main(): Promise<void> {
  if (args['parse-only']) {
    const { loadavg } = await import('node:os');
    say(`Node ${process.version}; load average before: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    await parserCosts();
    await parseAndCompile();
    await fastAgainstWasm();
    say(`Load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
    record('HogQL parse costs');
    return;
  }
  const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'hedgerow-bench-hogql-'));
  const db = await openColumnar({ dir, threads: args.threads === undefined ? undefined : Number(args.threads) });
  const loader = createLoader(db);
  const reuse = (await loader.position('bench')) > 0;
  const { loadavg } = await import('node:os');
  say(`Node ${process.version}; load average before: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  if (!reuse) {
    const t0 = performance.now();
    for (let from = 0; from < EVENTS; from += BATCH) await loader.load({ events: generate(from, Math.min(EVENTS, from + BATCH)), position: { name: 'bench', seq: from + 1 } });
    say(`Load: ${fmt(EVENTS)} events (two projects, 9 in 10 in project 1) in ${(ms(t0) / 1000).toFixed(1)} s`);
  }
  const ctx = { projectId: 1, timezone: 'UTC', weekStart: 0 as const, nowMs: END };
  if (args.only !== undefined) {
    await onlyQuery(db, args.only, ctx);
    await db.close();
    return;
  }
  const pairs: { name: string; hogql: string; hand: string }[] = [
    { name: 'count by event', hogql: 'select event, count() from events group by event', hand: 'SELECT event, count(*) FROM events WHERE project = 1 GROUP BY event' },
    { name: 'count by $browser (hot column)', hogql: 'select properties.$browser, count() from events group by properties.$browser', hand: 'SELECT browser, count(*) FROM events WHERE project = 1 GROUP BY browser' },
    { name: 'sum of a JSON property by plan, one event', hogql: "select properties.plan, sum(properties.price) from events where event = 'purchase' group by properties.plan", hand: "SELECT json_extract_string(properties, '/plan'), sum(TRY_CAST(json_extract_string(properties, '/price') AS DOUBLE)) FROM events WHERE project = 1 AND event = 'purchase' GROUP BY 1" },
    { name: 'daily unique users', hogql: "select toStartOfDay(timestamp) as day, uniq(distinct_id) from events where event = '$pageview' group by day order by day", hand: "SELECT date_trunc('day', timestamp) AS day, count(DISTINCT distinct_id) FROM events WHERE project = 1 AND event = '$pageview' GROUP BY day ORDER BY day" },
  ];
  say(`Each pair: one warm-up, then ${RUNS} runs alternating HogQL and hand-written SQL (p50, p95 ms)`);
  say('');
  say('| query | HogQL p50 | HogQL p95 | hand p50 | hand p95 | HogQL ÷ hand (p50) |');
  say('|---|---:|---:|---:|---:|---:|');
  for (const pair of pairs) {
    const hogqlRun = async () => {
      const r = await runQuery(db, { kind: 'HogQLQuery', query: pair.hogql }, ctx);
      return (r.results as unknown[]).length;
    };
    const handRun = async () => (await db.query(raw(pair.hand))).length;
    const [a, b] = [await hogqlRun(), await handRun()];
    if (a !== b) throw new Error(`${pair.name}: HogQL gave ${a} rows, the hand-written query ${b}`);
    const h: number[] = [];
    const d: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t0 = performance.now();
      await hogqlRun();
      h.push(ms(t0));
      t0 = performance.now();
      await handRun();
      d.push(ms(t0));
    }
    const [hp50, hp95, dp50, dp95] = [pct(h, 50), pct(h, 95), pct(d, 50), pct(d, 95)];
    say(`| ${pair.name} | ${fmt(hp50)} | ${fmt(hp95)} | ${fmt(dp50)} | ${fmt(dp95)} | ${(hp50 / dp50).toFixed(2)} |`);
  }
  // HogQL in trends (math, breakdown, filter) against the planner's own fields for the same numbers.
  const trends = (series: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    kind: 'TrendsQuery', dateRange: { date_from: '-30d' }, interval: 'day', series: [{ kind: 'EventsNode', event: 'purchase', ...series }], ...extra,
  });
  const insightPairs: { name: string; hogql: unknown; own: unknown }[] = [
    { name: 'daily sum of a property', hogql: trends({ math: 'hogql', math_hogql: 'sum(toFloat(properties.price))' }), own: trends({ math: 'sum', math_property: 'price' }) },
    { name: 'daily count by $browser', hogql: trends({}, { breakdownFilter: { breakdown_type: 'hogql', breakdown: 'properties.$browser' } }), own: trends({}, { breakdownFilter: { breakdown: '$browser' } }) },
    { name: 'daily count, a property filter', hogql: trends({ properties: [{ type: 'hogql', key: "properties.plan = 'pro'" }] }), own: trends({ properties: [{ key: 'plan', value: 'pro', operator: 'exact' }] }) },
  ];
  say('');
  say(`HogQL inside TrendsQuery against the planner's own fields, one warm-up, then ${RUNS} runs alternating (p50, p95 ms)`);
  say('');
  say('| trends | HogQL p50 | HogQL p95 | own p50 | own p95 | HogQL ÷ own (p50) |');
  say('|---|---:|---:|---:|---:|---:|');
  for (const pair of insightPairs) {
    const numbers = async (query: unknown) => {
      const r = await runQuery(db, query, ctx);
      return JSON.stringify((r.results as { data: number[]; breakdown_value?: string }[]).map((i) => [i.breakdown_value, i.data.map((v) => Math.round(v * 1e6))]));
    };
    const [a, b] = [await numbers(pair.hogql), await numbers(pair.own)];
    if (a !== b) throw new Error(`${pair.name}: HogQL gave ${a.slice(0, 200)}, the planner's own ${b.slice(0, 200)}`);
    const h: number[] = [];
    const o: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      let t0 = performance.now();
      await numbers(pair.hogql);
      h.push(ms(t0));
      t0 = performance.now();
      await numbers(pair.own);
      o.push(ms(t0));
    }
    const [hp50, hp95, op50, op95] = [pct(h, 50), pct(h, 95), pct(o, 50), pct(o, 95)];
    say(`| ${pair.name} | ${fmt(hp50)} | ${fmt(hp95)} | ${fmt(op50)} | ${fmt(op95)} | ${(hp50 / op50).toFixed(2)} |`);
  }
  await parseAndCompile();
  await fastAgainstWasm();
  say(`Load average after: ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  await db.close();
  if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
  record('HogQL vs hand-written DuckDB');
}

async function onlyQuery(db: Awaited<ReturnType<typeof openColumnar>>, text: string, ctx: { projectId: number; timezone: string; weekStart: 0; nowMs: number }): Promise<void> {
  const run = async () => (await runQuery(db, { kind: 'HogQLQuery', query: text }, ctx)).results as unknown[];
  const rows = (await run()).length;
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await run();
    times.push(ms(t0));
  }
  say(`${rows} rows; ms: ${times.map(fmt).join(' ')}; p50 ${fmt(pct(times, 50))}`);
}

function record(title: string): void {
  if (args.record) {
    const flags = args['parse-only'] ? '--parse-only' : `--events ${EVENTS} --runs ${RUNS}`;
    appendFileSync(new URL('../../bench/RESULTS.md', import.meta.url), `\n## ${title} (${new Date().toISOString().slice(0, 10)})\n\nCommand: \`node dist/bench/hogql.js ${flags} --record\`\n\n${lines.join('\n')}\n`);
  }
}

// Parse + compile alone: the parser in this thread (warm after what ran before).
async function parseAndCompile(): Promise<void> {
  const typical = TYPICAL;
  const n = 200;
  let parse = 0;
  let compile = 0;
  let cold = 0;
  let renamed = 0;
  for (let i = 0; i < n; i++) {
    // A text of a new shape (another alias): the WASM parser, whatever the caches hold.
    const t1 = performance.now();
    await parseHogQLSelect(typical.replace(/browser/g, `browser_${i}`));
    renamed += ms(t1);
    // A text not seen before that differs in a constant: its shape's parse, constants put back.
    const fresh = typical.replace('c > 10', `c > ${1000 + i}`);
    let t0 = performance.now();
    await parseHogQLSelect(fresh);
    cold += ms(t0);
    t0 = performance.now();
    const ast = await parseHogQLSelect(typical);
    parse += ms(t0);
    t0 = performance.now();
    compileHogQL(ast, typical, { projectId: 1, timezone: 'UTC', weekStart: 0, values: {}, variables: {}, filters: null });
    compile += ms(t0);
  }
  say('');
  say(`Parse + compile of a typical query (${typical.length} characters), mean of ${n}: parse of a text of a new shape ${(renamed / n).toFixed(2)} ms, of a new text of a known shape (another constant) ${(cold / n).toFixed(2)} ms, of a text parsed before ${(parse / n).toFixed(3)} ms (cached), compile ${(compile / n).toFixed(3)} ms`);
}

// A new text's parse + compile: the fast parser against the WASM parser, each text made new by
// renaming an alias (no cache in either), alternating, mean per text.
async function fastAgainstWasm(): Promise<void> {
  const { fastParse } = await import('../src/hogql/index.js');
  const wasm = await (await import('@posthog/hogql-parser')).default();
  const texts: [string, string][] = [
    ['select 1 as x', 'select 1 as x'],
    ['count by event', 'select event as x, count() from events group by event'],
    [`the typical query (${TYPICAL.length} characters)`, TYPICAL.replace(' as c,', ' as x, count() as c,')],
    ['a join with a subquery', "select e.event as x, p.email from events e left join (select id, properties.email as email from persons) p on p.id = e.person_id where e.event in ('a', 'b') and e.timestamp > now() - interval 30 day limit 10"],
    ['a CTE, CASE and a union', "with recent as (select distinct_id, event from events where timestamp > now() - interval 7 day) select case when event = '$pageview' then 'view' else 'other' end as x, count() from recent group by 1 union all select 'total', count() from events"],
  ];
  const n = 100;
  const compile = (ast: unknown, text: string) => compileHogQL(ast as Parameters<typeof compileHogQL>[0], text, { projectId: 1, timezone: 'UTC', weekStart: 0, values: {}, variables: {}, filters: null });
  // Warm both (the engine's compilation of each parser's code, ANTLR's prediction tables).
  for (let i = 0; i < 20; i++) {
    for (const [, text] of texts) {
      compile(JSON.parse(wasm.parseSelect(text.replace(' as x', ` as w${i}`), false)), text);
      compile(JSON.parse(fastParse('select', text.replace(' as x', ` as w${i}`))!), text);
    }
  }
  say('');
  say(`A new text's parse + compile, fast parser against the WASM parser (warm, this thread), alternating, mean of ${n} texts each (ms)`);
  say('');
  say('| text | fast parse | fast parse + compile | WASM parse | WASM parse + compile | WASM ÷ fast (parse + compile) |');
  say('|---|---:|---:|---:|---:|---:|');
  for (const [name, text] of texts) {
    let fastParseMs = 0;
    let fastTotal = 0;
    let wasmParseMs = 0;
    let wasmTotal = 0;
    for (let i = 0; i < n; i++) {
      const fresh = text.replace(' as x', ` as x${i}`);
      let t0 = performance.now();
      const json = fastParse('select', fresh);
      if (json === null) throw new Error(`the fast parser left ${name} to the WASM parser`);
      const fastAst = JSON.parse(json);
      fastParseMs += ms(t0);
      compile(fastAst, fresh);
      fastTotal += ms(t0);
      t0 = performance.now();
      const wasmAst = JSON.parse(wasm.parseSelect(fresh, false));
      wasmParseMs += ms(t0);
      compile(wasmAst, fresh);
      wasmTotal += ms(t0);
    }
    say(`| ${name} | ${(fastParseMs / n).toFixed(3)} | ${(fastTotal / n).toFixed(3)} | ${(wasmParseMs / n).toFixed(2)} | ${(wasmTotal / n).toFixed(2)} | ${(wasmTotal / fastTotal).toFixed(1)} |`);
  }
}

await main();
