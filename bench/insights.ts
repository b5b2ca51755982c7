// The insights engine at scale: `--events` generated events (default 10 M) over 90 days from
// `--persons` persons (default 100 k, activity skewed so a day sees about a third of them;
// one in ten first browses under an anonymous id merged into its person at the end) are
// loaded into a fresh columnar store through the loader in batches of `--batch`, then each
// query is run once to warm up and 5 times measured (p50, p95).
//   node dist/bench/insights.js [--events 10000000] [--persons 100000] [--batch 50000] [--threads N] [--record]
//   node dist/bench/insights.js --compare-loaders [--events 500000]
// The load goes straight into the loader (not yet through the log and an aggregation
// worker). Baselines of the same run: generating and serializing the events alone, and a
// bare scan of the events table (the floor under every query).
// --compare-loaders loads the same events three ways into fresh stores: the loader (staged
// NDJSON read by DuckDB, INSERT…SELECT with the anti-join on uuid), DuckDB's appender into
// a staging table then the same INSERT…SELECT, and the appender straight into the table
// (no duplicate check: an upper bound, not a correct loader).
import { appendFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openColumnar, type Columnar } from '../src/insights/columnar/database.js';
import { createLoader } from '../src/insights/columnar/loader.js';
import type { ColumnarEvent } from '../src/insights/columnar/stage.js';
import { runQuery } from '../src/insights/run.js';
import { DEFAULT_MEMORY_LIMIT } from '../src/insights/columnar/database.js';
import { sql } from '../src/insights/planner/sql.js';
import { HOT } from '../src/insights/columnar/schema.js';
import { xorshift } from '../test/helpers/xorshift.js';
import { percentile } from './fixed-rate.js';
import { memoryOf, residentOf } from './proc.js';

const { values: args } = parseArgs({ options: {
  events: { type: 'string' },
  persons: { type: 'string', default: '100000' },
  batch: { type: 'string', default: '50000' },
  threads: { type: 'string' },
  // DuckDB's memory limit (default: the columnar store's, DEFAULT_MEMORY_LIMIT).
  memory: { type: 'string' },
  'compare-loaders': { type: 'boolean', default: false },
  // Keep the loaded store in this directory (and reuse it when it holds one: queries only).
  keep: { type: 'string' },
  record: { type: 'boolean', default: false },
} });
const COMPARE = args['compare-loaders'];
const EVENTS = Number(args.events ?? (COMPARE ? 500_000 : 10_000_000));
const PERSONS = Number(args.persons);
const BATCH = Number(args.batch);
const THREADS = args.threads === undefined ? undefined : Number(args.threads);
const DAYS = 90;
const DAY_MS = 86_400_000;
const END = Date.parse('2026-11-25T00:00:00Z');
const START = END - DAYS * DAY_MS;
const PROJECT = 1;

const EVENT_MIX: [string, number][] = [['$pageview', 0.6], ['$autocapture', 0.2], ['signed_up', 0.05], ['added_to_cart', 0.07], ['purchase', 0.03], ['$identify', 0.05]];
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Opera', 'Samsung Internet'];
const OS = ['Windows', 'Mac OS X', 'iOS', 'Android', 'Linux'];
const PATHS = Array.from({ length: 200 }, (_, i) => `/page/${i}`);

const personUuid = (p: number) => `0190${(p >>> 16).toString(16).padStart(4, '0')}-${(p & 0xffff).toString(16).padStart(4, '0')}-7000-8000-${p.toString(16).padStart(12, '0')}`;
const anonUuid = (p: number) => `0191${(p >>> 16).toString(16).padStart(4, '0')}-${(p & 0xffff).toString(16).padStart(4, '0')}-7000-8000-${p.toString(16).padStart(12, '0')}`;
const eventUuid = (i: number) => `0192${(i >>> 16).toString(16).padStart(4, '0')}-${(i & 0xffff).toString(16).padStart(4, '0')}-7000-9000-${i.toString(16).padStart(12, '0')}`;

/** Events i in [from, to), in time order. Person 10k's first third browse anonymously. */
function generate(from: number, to: number): ColumnarEvent[] {
  const rnd = xorshift(from + 1);
  const out: ColumnarEvent[] = [];
  for (let i = from; i < to; i++) {
    const p = Math.floor(PERSONS * rnd() * rnd());
    const ts = START + Math.floor((i / EVENTS) * DAYS * DAY_MS);
    let r = rnd();
    let event = EVENT_MIX[0][0];
    for (const [name, share] of EVENT_MIX) {
      if (r < share) {
        event = name;
        break;
      }
      r -= share;
    }
    const anonymous = p % 10 === 0 && i < EVENTS / 3;
    const properties: Record<string, unknown> = {
      $browser: BROWSERS[p % BROWSERS.length], $os: OS[(p >> 3) % OS.length], $device_type: p % 3 === 0 ? 'Mobile' : 'Desktop',
      $pathname: PATHS[Math.floor(rnd() * PATHS.length)], $host: 'example.com', $lib: 'web', $lib_version: '1.200.0',
      $session_id: `${p}-${Math.floor(ts / 3_600_000)}`, $screen_width: 1920, $referring_domain: '$direct', plan: p % 4 === 0 ? 'paid' : 'free',
    };
    properties.$current_url = `https://example.com${properties.$pathname as string}`;
    if (event === 'purchase') properties.price = Math.floor(rnd() * 10_000) / 100;
    out.push({
      project_id: PROJECT, uuid: eventUuid(i), event, distinct_id: anonymous ? `anon-${p}` : `user-${p}`,
      person_id: anonymous ? anonUuid(p) : personUuid(p), timestamp: new Date(ts).toISOString(), properties,
    });
  }
  return out;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};

async function fresh(): Promise<{ db: Columnar; dir: string }> {
  const dir = args.keep ?? mkdtempSync(join(tmpdir(), 'hedgerow-bench-insights-'));
  return { db: await openColumnar({ dir, threads: THREADS, memoryLimit: args.memory }), dir };
}

async function loadWithLoader(db: Columnar): Promise<{ seconds: number; stageSeconds: number }> {
  const loader = createLoader(db);
  const t0 = performance.now();
  let stage = 0;
  let pending: Promise<unknown> = Promise.resolve();
  for (let from = 0; from < EVENTS; from += BATCH) {
    const batch = generate(from, Math.min(EVENTS, from + BATCH));
    const s = performance.now();
    const done = loader.load({ events: batch, position: { name: 'bench', seq: from } });
    stage += performance.now() - s;
    // One batch in flight while the next is generated and staged.
    await pending;
    pending = done;
  }
  await pending;
  return { seconds: (performance.now() - t0) / 1000, stageSeconds: stage / 1000 };
}

async function compareLoaders(): Promise<void> {
  const { DuckDBInstance, DuckDBTimestampTZValue } = await import('@duckdb/node-api');
  say(`Load methods, ${fmt(EVENTS)} events in batches of ${fmt(BATCH)} (events generated before timing):`);
  const batches: ColumnarEvent[][] = [];
  for (let from = 0; from < EVENTS; from += BATCH) batches.push(generate(from, Math.min(EVENTS, from + BATCH)));

  {
    const { db, dir } = await fresh();
    const loader = createLoader(db);
    const t0 = performance.now();
    for (const b of batches) await loader.load({ events: b });
    const s = (performance.now() - t0) / 1000;
    say(`- staged NDJSON + INSERT…SELECT, anti-join on uuid (the loader): ${fmt(EVENTS / s)} events/s`);
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const staged of [true, false]) {
    const { db, dir } = await fresh();
    await db.close();
    const instance = await DuckDBInstance.create(join(dir, 'insights.duckdb'), THREADS === undefined ? {} : { threads: String(THREADS) });
    const c = await instance.connect();
    const cols = `project INTEGER, uuid UUID, event VARCHAR, distinct_id VARCHAR, person_id UUID, timestamp TIMESTAMPTZ, ${HOT.map((h) => `${h.column} VARCHAR`).join(', ')}, properties JSON`;
    const t0 = performance.now();
    for (const b of batches) {
      const target = staged ? 'stage' : 'events';
      if (staged) await c.run(`CREATE OR REPLACE TEMP TABLE stage (${cols})`);
      const a = await c.createAppender(target);
      for (const e of b) {
        a.appendInteger(e.project_id);
        a.appendVarchar(e.uuid);
        a.appendVarchar(e.event);
        a.appendVarchar(e.distinct_id);
        a.appendVarchar(e.person_id);
        a.appendTimestampTZ(new DuckDBTimestampTZValue(BigInt(Date.parse(e.timestamp)) * 1000n));
        for (const h of HOT) {
          const v = e.properties[h.property];
          if (typeof v === 'string') a.appendVarchar(v);
          else a.appendNull();
        }
        a.appendVarchar(JSON.stringify(e.properties));
        a.endRow();
      }
      a.closeSync();
      if (staged) {
        const times = b.map((e) => Date.parse(e.timestamp));
        await c.run(`INSERT INTO events SELECT s.* FROM stage s WHERE NOT EXISTS (SELECT 1 FROM (SELECT project, uuid, timestamp FROM events WHERE timestamp BETWEEN make_timestamptz(${Math.min(...times)}::BIGINT * 1000) AND make_timestamptz(${Math.max(...times)}::BIGINT * 1000)) e WHERE e.project = s.project AND e.uuid = s.uuid AND e.timestamp = s.timestamp)`);
      }
    }
    const s = (performance.now() - t0) / 1000;
    say(staged ? `- appender into a staging table + the same INSERT…SELECT: ${fmt(EVENTS / s)} events/s` : `- appender straight into the table, no duplicate check (upper bound, not correct): ${fmt(EVENTS / s)} events/s`);
    c.closeSync();
    instance.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

const QUERIES: Record<string, object> = {
  'daily trend ($pageview, 90 days)': { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '-90d' } },
  'daily DAU ($pageview, 90 days)': { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], interval: 'day', dateRange: { date_from: '-90d' } },
  'breakdown by $browser (daily, 90 days)': { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '-90d' }, breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } },
  'breakdown by plan (JSON property)': { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '-90d' }, breakdownFilter: { breakdown: 'plan', breakdown_type: 'event' } },
  '3-step funnel (30 days, 14-day window)': { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'added_to_cart' }, { kind: 'EventsNode', event: 'purchase' }], dateRange: { date_from: '-30d' } },
  // The same funnel's trends view and with an exclusion: a try per $pageview (the steps view
  // starts one per added_to_cart), so these measure that cost against the line above.
  '3-step funnel trends (daily, 30 days)': { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'added_to_cart' }, { kind: 'EventsNode', event: 'purchase' }], dateRange: { date_from: '-30d' }, funnelsFilter: { funnelVizType: 'trends' } },
  '3-step funnel excluding $identify (30 days)': { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'added_to_cart' }, { kind: 'EventsNode', event: 'purchase' }], dateRange: { date_from: '-30d' }, funnelsFilter: { exclusions: [{ kind: 'EventsNode', event: '$identify', funnelFromStep: 0, funnelToStep: 2 }] } },
  'weekly retention (11 weeks)': { kind: 'RetentionQuery', retentionFilter: { period: 'Week', totalIntervals: 11, retentionType: 'retention_recurring', targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } } },
  'lifecycle (daily, 30 days)': { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '-30d' } },
  // Paths: every person's events sorted and split into sessions (planner/paths.ts).
  'paths ($pageview URLs, 7 days)': { kind: 'PathsQuery', dateRange: { date_from: '-7d' }, pathsFilter: { includeEventTypes: ['$pageview'] } },
  'paths (all events, 30 days)': { kind: 'PathsQuery', dateRange: { date_from: '-30d' }, pathsFilter: {} },
  // The persons behind one number of the insights above (first page of 100, most events first where counted).
  'actors: DAU of one day': actors({ kind: 'InsightActorsQuery', source: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', math: 'dau' }], interval: 'day', dateRange: { date_from: '-90d' } }, day: daysAgo(5) }),
  'actors: funnel dropped at step 2': actors({ kind: 'FunnelsActorsQuery', source: { kind: 'FunnelsQuery', series: [{ kind: 'EventsNode', event: '$pageview' }, { kind: 'EventsNode', event: 'added_to_cart' }, { kind: 'EventsNode', event: 'purchase' }], dateRange: { date_from: '-30d' } }, funnelStep: -2 }),
  'actors: retention cohort 0': actors({ kind: 'InsightActorsQuery', source: { kind: 'RetentionQuery', retentionFilter: { period: 'Week', totalIntervals: 11, retentionType: 'retention_recurring', targetEntity: { id: '$pageview', type: 'events' }, returningEntity: { id: '$pageview', type: 'events' } } }, interval: 0 }),
  'actors: lifecycle returning, one day': actors({ kind: 'InsightActorsQuery', source: { kind: 'LifecycleQuery', series: [{ kind: 'EventsNode', event: '$pageview' }], interval: 'day', dateRange: { date_from: '-30d' } }, day: daysAgo(5), status: 'returning' }),
};

function actors(source: object): object {
  return { kind: 'ActorsQuery', source };
}

function daysAgo(n: number): string {
  return new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
}

async function main(): Promise<void> {
  say(`Node ${process.version}, DuckDB threads: ${THREADS ?? 'default (cores)'}, memory limit: ${args.memory ?? `default (${DEFAULT_MEMORY_LIMIT})`}`);
  // This process's memory: DuckDB's (native, anonymous) beside the generator's heap.
  const memory = (when: string) => {
    const r = residentOf(process.pid);
    say(`Memory ${when}: RSS ${fmt(r.rss / 1024)} MB (${fmt(r.anon / 1024)} MB anonymous, ${fmt(r.file / 1024)} MB file-backed), peak ${fmt(memoryOf(process.pid).peak / 1024)} MB; JS heap ${fmt(process.memoryUsage().heapTotal / 2 ** 20)} MB`);
  };
  if (COMPARE) {
    await compareLoaders();
  } else {
    // Baseline: generating and serializing the events alone (what the loader's caller and its
    // staging cost in JavaScript without DuckDB).
    const g0 = performance.now();
    let bytes = 0;
    for (let from = 0; from < Math.min(EVENTS, 1_000_000); from += BATCH) {
      for (const e of generate(from, Math.min(EVENTS, from + BATCH))) bytes += JSON.stringify(e).length;
    }
    const genRate = Math.min(EVENTS, 1_000_000) / ((performance.now() - g0) / 1000);
    say(`Baseline: generating + JSON-serializing ${fmt(Math.min(EVENTS, 1_000_000))} events alone: ${fmt(genRate)} events/s (${fmt(bytes / Math.min(EVENTS, 1_000_000))} bytes each)`);

    const { db, dir } = await fresh();
    const reuse = args.keep !== undefined && (await createLoader(db).position('bench')) > 0;
    if (reuse) say(`Reusing the store in ${dir} (queries only)`);
    const load = reuse ? null : await loadWithLoader(db);
    if (load) {
      say(`Load: ${fmt(EVENTS)} events from ${fmt(PERSONS)} persons over ${DAYS} days in batches of ${fmt(BATCH)}: ${load.seconds.toFixed(1)} s, ${fmt(EVENTS / load.seconds)} events/s (generation included; staging in JS ${load.stageSeconds.toFixed(1)} s of it)`);
      const loader = createLoader(db);
      const merges = [];
      for (let p = 0; p < PERSONS; p += 10) merges.push({ project_id: PROJECT, distinct_id: `anon-${p}`, person_id: anonUuid(p) });
      await loader.load({ distinctIds: merges });
      const m0 = performance.now();
      const moved = await loader.load({ distinctIds: merges.map((m, i) => ({ ...m, person_id: personUuid(i * 10) })) });
      say(`Merge: ${fmt(moved.moved)} anonymous persons merged into their identified ones in one batch (their events moved): ${((performance.now() - m0) / 1000).toFixed(2)} s`);
      await db.query(sql`CHECKPOINT`);
      const size = statSync(join(dir, 'insights.duckdb')).size;
      say(`Store: ${(size / 1e6).toFixed(0)} MB on disk, ${fmt(size / EVENTS)} bytes per event`);
      memory('after the load');
    }

    const ctx = { projectId: PROJECT, timezone: 'Europe/Paris', weekStart: 0 as const, nowMs: END - 1000 };
    const scan = async () => {
      const t = performance.now();
      await db.query(sql`SELECT count(*) FROM events WHERE project = ${PROJECT} AND event = ${'$pageview'}`);
      return performance.now() - t;
    };
    const timings = async (f: () => Promise<unknown>) => {
      await f();
      const ms: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        await f();
        ms.push(performance.now() - t);
      }
      const sorted = Float64Array.from(ms).sort();
      return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
    };
    const base = await timings(scan);
    say(`Baseline scan (count of $pageview, no grouping): p50 ${base.p50.toFixed(0)} ms, p95 ${base.p95.toFixed(0)} ms`);
    say('');
    say('| query | p50 ms | p95 ms | p50 ÷ scan |');
    say('|---|---:|---:|---:|');
    for (const [name, query] of Object.entries(QUERIES)) {
      const t = await timings(() => runQuery(db, query, ctx));
      say(`| ${name} | ${t.p50.toFixed(0)} | ${t.p95.toFixed(0)} | ${(t.p50 / base.p50).toFixed(1)} |`);
    }
    memory('after the queries');
    await db.close();
    if (args.keep === undefined) rmSync(dir, { recursive: true, force: true });
  }
  if (args.record) {
    const command = `node dist/bench/insights.js ${process.argv.slice(2).join(' ')}`.trim();
    appendFileSync(new URL('../../bench/RESULTS.md', import.meta.url), `\n## Insights engine${COMPARE ? ': load methods' : ''} (${new Date().toISOString().slice(0, 10)})\n\nCommand: \`${command}\`\n\n${lines.join('\n')}\n`);
  }
}

await main();
