// The floor under insights ingest (issue 26: ≥ 150,000 events/s): what DuckDB itself costs
// to take the events the insights consumer loads, with nothing of the consumer around it.
// The events of a data dir prepared by bench/insights-consumer (`--keep DIR`) are staged by
// this tree's BatchBuilder in batches of `--batch`, and every value is made ready before
// anything is timed; then, each into a fresh columnar store (the service's DuckDB settings,
// `--threads` DuckDB threads), timed to a final CHECKPOINT:
//   appender   DuckDB's appender into the events table, row by row, the same 16 columns,
//              values already typed (UUIDs, timestamps, the hot columns, the properties
//              text): no JSON read, no duplicate check (not a correct loader: the floor)
//   read_json  the staged lines through read_json and the same INSERT with the hot columns
//              extracted, no duplicate check
//   appender, properties '{}'   the same with an empty property bag: what the ~3 KB of
//              properties text costs DuckDB to store (not a correct loader either)
//   loader     the loader itself (createLoader(db).load of the staged text: read_json, the
//              duplicate check on uuid, its transaction)
// and, apart, the LMDB reads the consumer cannot do without: each event's row and its
// distinct id's person row, as bytes (getBinaryFast), nothing decoded.
// Reported: events/s (wall) and CPU µs per event (the process's, every thread).
//   node dist/bench/insights-floor.js --data DIR/data [--batch 10000] [--threads 1] [--set KEY=VALUE ...] [--record] [--label TEXT]
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { openStore } from '../src/store/index.js';
import { tables } from '../src/tables.js';
import { BatchBuilder } from '../src/insights/from-store.js';
import { DEFAULT_MEMORY_LIMIT, openColumnar, type Columnar } from '../src/insights/columnar/database.js';
import { createLoader } from '../src/insights/columnar/loader.js';
import { DDL, HOT } from '../src/insights/columnar/schema.js';
import type { StagedEvents } from '../src/insights/columnar/stage.js';
import { raw } from '../src/insights/planner/sql.js';
import { root } from './ceiling.js';

const { values: args } = parseArgs({ options: {
  data: { type: 'string' },
  batch: { type: 'string', default: '10000' },
  threads: { type: 'string', default: '1' },
  record: { type: 'boolean', default: false },
  label: { type: 'string' },
  // A DuckDB setting for the bare instances (appender, read_json), e.g. force_compression=uncompressed.
  set: { type: 'string', multiple: true, default: [] },
} });
const BATCH = Number(args.batch);
const THREADS = Number(args.threads);
const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as typeof import('@duckdb/node-api');

const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

// 1. The events, staged and typed, before any timing.
const dataDir = resolve(args.data!);
const store = openStore(dataDir, tables);
const batches: StagedEvents[] = [];
let builder = new BatchBuilder(store);
const keys: [number, string][] = [];
for (const key of store.eventRows.getKeys({})) keys.push(key);
for (let i = 0; i < keys.length; i += BATCH) {
  builder.addGroups([{ events: keys.slice(i, i + BATCH).map(([project_id, uuid]) => ({ project_id, uuid })) as never }]);
  const text = builder.take().eventText;
  if (text) batches.push(text);
  builder = new BatchBuilder(store);
}
const events = batches.reduce((n, b) => n + b.count, 0);
const bytes = batches.reduce((n, b) => n + b.bytes.length, 0);

// The LMDB reads alone: each event's row and its person's row, as bytes.
const distinctIds = new Map<string, string>();
for (const b of batches) {
  for (const l of b.bytes.toString('utf8').split('\n')) {
    if (l === '') continue;
    const e = JSON.parse(l) as { uuid: string; distinct_id: string };
    distinctIds.set(e.uuid, e.distinct_id);
  }
}
let c0 = cpu();
let t0 = performance.now();
let read = 0;
for (const [project, uuid] of keys) {
  read += store.eventRows.getBinaryFast([project, uuid])?.length ?? 0;
  const id = distinctIds.get(uuid);
  if (id !== undefined) read += store.personDistinctIds.getBinaryFast([project, id])?.length ?? 0;
}
const lmdb = { us: (cpu() - c0) / keys.length, wall: performance.now() - t0 };
await store.close();

type Row = { project: number; uuid: string; event: string; distinct_id: string; person_id: string; timestamp: string; properties: Record<string, unknown> };
const uuidValue = (u: string) => duckdb.DuckDBUUIDValue.fromUint128(BigInt(`0x${u.replaceAll('-', '')}`));
// Typed values of each batch for the appender.
const typed = batches.map((b) => b.bytes.toString('utf8').split('\n').filter((l) => l !== '').map((l) => {
  const r = JSON.parse(l) as Row;
  return {
    project: r.project, uuid: uuidValue(r.uuid), event: r.event, distinct_id: r.distinct_id, person_id: uuidValue(r.person_id),
    timestamp: new duckdb.DuckDBTimestampTZValue(BigInt(Date.parse(r.timestamp)) * 1000n),
    hot: HOT.map((h) => (typeof r.properties[h.property] === 'string' ? r.properties[h.property] as string : null)),
    properties: JSON.stringify(r.properties),
  };
}));

const work = mkdtempSync(join(tmpdir(), 'hedgerow-insights-floor-'));
const files = batches.map((b, i) => {
  const file = join(work, `${i}.ndjson`);
  writeFileSync(file, b.bytes);
  return file;
});
const EVENT_COLUMNS = `{project: 'INTEGER', uuid: 'UUID', event: 'VARCHAR', distinct_id: 'VARCHAR', person_id: 'UUID', timestamp: 'TIMESTAMPTZ', properties: 'JSON'}`;
const pointers = `[${HOT.map((h) => `'/${h.property}'`).join(', ')}]`;
const hotSelect = HOT.map((_, i) => `s.hot[${i + 1}]`).join(', ');

// A fresh store of the service's settings: the loader's own (openColumnar), or a bare instance
// configured alike for the appender and read_json.
async function variant(name: string, load: (target: { db?: Columnar; conn?: DuckDBConnection }) => Promise<void>) {
  const dir = join(work, name.replace(/[^a-z_]/g, ''));
  let db: Columnar | undefined;
  let instance: DuckDBInstance | undefined;
  let conn: DuckDBConnection | undefined;
  if (name === 'loader') db = await openColumnar({ dir, threads: THREADS });
  else {
    mkdirSync(dir, { recursive: true });
    instance = await duckdb.DuckDBInstance.create(join(dir, 'insights.duckdb'), {
      autoinstall_known_extensions: 'false', preserve_insertion_order: 'false', checkpoint_threshold: '256MB', allocator_background_threads: 'true',
      threads: String(THREADS), memory_limit: DEFAULT_MEMORY_LIMIT,
      ...Object.fromEntries(args.set!.map((kv) => kv.split('=', 2))),
    });
    conn = await instance.connect();
    await conn.run("SET TimeZone = 'UTC'");
    for (const ddl of DDL) await conn.run(ddl);
  }
  const c = cpu();
  const t = performance.now();
  await load({ db, conn });
  const beforeCheckpoint = cpu();
  if (db) await db.query(raw('CHECKPOINT'));
  else await conn!.run('CHECKPOINT');
  const us = (cpu() - c) / events;
  const checkpointUs = (cpu() - beforeCheckpoint) / events;
  const wall = performance.now() - t;
  const n = db ? Number((await db.query(raw('SELECT count(*) AS n FROM events')))[0].n) : Number((await conn!.runAndReadAll('SELECT count(*) FROM events')).getRowsJS()[0][0]);
  await db?.close();
  conn?.closeSync();
  instance?.closeSync();
  rmSync(dir, { recursive: true, force: true });
  if (n !== events) throw new Error(`${name}: ${n} events stored of ${events}`);
  return { name, us, checkpointUs, rate: events / (wall / 1000) };
}

const results = [];
const appender = (emptyProperties: boolean) => async ({ conn }: { conn?: DuckDBConnection }) => {
  if (!conn) throw new Error('no connection');
  for (const rows of typed) {
    await conn.run('BEGIN TRANSACTION');
    const a = await conn.createAppender('events');
    for (const r of rows) {
      a.appendInteger(r.project);
      a.appendUUID(r.uuid);
      a.appendVarchar(r.event);
      a.appendVarchar(r.distinct_id);
      a.appendUUID(r.person_id);
      a.appendTimestampTZ(r.timestamp);
      for (const h of r.hot) h === null ? a.appendNull() : a.appendVarchar(h);
      a.appendVarchar(emptyProperties ? '{}' : r.properties);
      a.endRow();
    }
    a.closeSync();
    await conn.run('COMMIT');
  }
};
results.push(await variant('appender', appender(false)));
results.push(await variant("appender, properties '{}'", appender(true)));
results.push(await variant('read_json', async ({ conn }) => {
  if (!conn) throw new Error('no connection');
  for (const file of files) {
    await conn.run(`INSERT INTO events SELECT s.project, s.uuid, s.event, s.distinct_id, s.person_id, s.timestamp, ${hotSelect}, s.properties
FROM (SELECT *, json_extract_string(properties, ${pointers}) AS hot FROM read_json('${file}', format = 'newline_delimited', columns = ${EVENT_COLUMNS})) s`);
  }
}));
results.push(await variant('loader', async ({ db }) => {
  const loader = createLoader(db!);
  for (const b of batches) await loader.load({ eventText: b });
}));
rmSync(work, { recursive: true, force: true });

say(`Node ${process.version}; ${fmt(events)} events (${fmt(bytes / events)} bytes of staged JSON each) from ${dataDir}, batches of ${fmt(BATCH)}, DuckDB threads ${THREADS}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
say();
say('| step | events/s (wall) | CPU µs per event | of which the final CHECKPOINT |');
say('|---|---:|---:|---:|');
say(`| LMDB: the event row and the person row as bytes (${fmt(read / keys.length)} bytes per event) | ${fmt(keys.length / (lmdb.wall / 1000))} | ${lmdb.us.toFixed(2)} | |`);
for (const r of results) say(`| DuckDB ${r.name} | ${fmt(r.rate)} | ${r.us.toFixed(2)} | ${r.checkpointUs.toFixed(2)} |`);

if (args.record) {
  const date = new Date().toISOString().slice(0, 10);
  appendFileSync(join(root, 'bench/RESULTS.md'), `\n## Insights ingest, the floor${args.label ? `: ${args.label}` : ''} (${date})\n\nCommand: \`node dist/bench/insights-floor.js ${process.argv.slice(2).join(' ')}\`\n\n${lines.join('\n')}\n`);
}
process.exit(0);
