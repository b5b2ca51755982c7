// Micro-batch loads into the columnar store, each one transaction: new events (idempotent
// on uuid), persons' current properties, groups' current state, the current person of distinct ids (a change moves
// the old person's events to the new one: how merges reach analytics) and the loader's log
// position, so a crash replays exactly the batches that did not commit.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { join, raw, sql, text, type Sql } from '../planner/sql.js';
import type { Columnar } from './database.js';
import type { Row } from '../planner/context.js';
import { HOT } from './schema.js';
import {
  DEFAULT_OBJECT_BYTES, distinctIdLines, groupLines, longestLineBytes, personLines, stageEvents,
  type ColumnarEvent, type ColumnarGroup, type ColumnarPerson, type DistinctIdMapping, type StagedEvents,
} from './stage.js';

export interface LoadBatch {
  events?: readonly ColumnarEvent[];
  /** The events already staged (src/insights/from-store.ts): instead of `events`. */
  eventText?: StagedEvents | null;
  persons?: readonly ColumnarPerson[];
  groups?: readonly ColumnarGroup[];
  distinctIds?: readonly DistinctIdMapping[];
  deletedPersons?: readonly { project_id: number; id: string }[];
  /** Stored with the batch: the last log sequence it covers. */
  position?: { name: string; seq: number };
}

export interface LoadResult {
  /** Events stored (duplicates of stored uuids are not). */
  inserted: number;
  /** Persons whose events moved to another person. */
  moved: number;
}

const EVENT_COLUMNS = `{project: 'INTEGER', uuid: 'UUID', event: 'VARCHAR', distinct_id: 'VARCHAR', person_id: 'UUID', timestamp: 'TIMESTAMPTZ', properties: 'JSON'}`;
const PERSON_COLUMNS = `{project: 'INTEGER', id: 'UUID', created_at: 'TIMESTAMPTZ', properties: 'JSON', is_identified: 'BOOLEAN'}`;
const GROUP_COLUMNS = `{project: 'INTEGER', type_index: 'INTEGER', key: 'VARCHAR', created_at: 'TIMESTAMPTZ', properties: 'JSON'}`;
const MAPPING_COLUMNS = `{project: 'INTEGER', distinct_id: 'VARCHAR', person_id: 'UUID'}`;

// A staged file and the bytes of its longest line: DuckDB's reader refuses a line past
// its maximum_object_size (16 MiB unless told), and capture accepts events up to its
// decompressed cap (64 MiB by default), so the bound is raised for a batch that needs it
// (the reader's buffers grow with it: only such a batch pays).
interface StagedFile { file: string; longest: number }

// DuckDB's JSON reader sizes its buffers from maximum_object_size (a 17 MiB line asked for
// 256 MiB at once): a batch that raises it would fail against the service's memory limit,
// so such a batch loads under a limit raised by 32 times its longest line, put back after.
// The value is a number we computed and the configured size (checked by its setting's
// pattern): SET takes no bound parameters.
const MIB = 1024 * 1024;
const UNITS: Record<string, number> = { '': 1, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: MIB, Gi: 1024 * MIB, Ti: 1024 * 1024 * MIB };

function sizeBytes(size: string): number {
  const m = /^([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?i?)B$/i.exec(size.trim());
  if (!m) throw new Error(`not a size: ${size}`);
  const unit = m[2].length === 2 ? m[2][0].toUpperCase() + 'i' : m[2].toUpperCase();
  return Number(m[1]) * (UNITS[unit] ?? 1);
}

export function raisedMemoryLimit(configured: string, longestLine: number): string {
  return `${Math.ceil((sizeBytes(configured) + 32 * longestLine) / MIB)}MiB`;
}

function readJson(staged: StagedFile, columns: string): Sql {
  const size = staged.longest > DEFAULT_OBJECT_BYTES ? raw(`, maximum_object_size = ${staged.longest + 1}`) : raw('');
  return sql`read_json(${raw(quoted(staged.file))}, format = 'newline_delimited', columns = ${raw(columns)}${size})`;
}

// A staged file's path (ours: the data dir's stage folder and a counter) as an SQL string
// literal, so that a statement reading it has no parameters: DuckDB then runs it in one call
// that starts at once (./database.ts), while this thread reads on.
const quoted = (path: string) => `'${path.replaceAll("'", "''")}'`;

// An instant (ms) as a TIMESTAMPTZ literal, to the microsecond: a parameter's value.
const instant = (ms: number) => `make_timestamp(${BigInt(Math.round(ms * 1000))}::BIGINT)::TIMESTAMPTZ`;

// The hot columns, read from the staged JSON by DuckDB in one parse of the properties (a
// list of pointers: 9 separate extractions parse the document 9 times, 2 µs per event).
// The pointers are the schema's constants: "$" and lower-case letters only.
const HOT_POINTERS = raw(`[${HOT.map((h) => {
  if (!/^\$[a-z_]+$/.test(h.property)) throw new Error(`unexpected hot property ${h.property}`);
  return `'/${h.property}'`;
}).join(', ')}]`);
const HOT_SELECT = raw(HOT.map((_, i) => `s.hot[${i + 1}]`).join(', '));

interface Staged {
  events: StagedFile & { count: number; ranges: { from: number; to: number }[] } | null;
  persons: StagedFile | null;
  groups: StagedFile | null;
  mappings: StagedFile | null;
}

export interface Loader {
  /**
   * Loads a batch. The staging text is built at once (so the next batch's preparation runs
   * while DuckDB still loads this one); batches commit in call order.
   */
  load(batch: LoadBatch): Promise<LoadResult>;
  /**
   * Loads a batch in one transaction as its reader reads it: `read` sends its events in parts
   * and resolves with the rest of the batch. DuckDB takes each part while the reader reads
   * the next (`send` resolves once the part before has gone in), so this thread does not sit
   * waiting for DuckDB, nor DuckDB for it. Batches commit in call order.
   */
  loadInParts(read: (send: (part: StagedEvents) => Promise<void>) => Promise<Omit<LoadBatch, 'events' | 'eventText'>>): Promise<LoadResult>;
  position(name: string): Promise<number>;
}

type Run = (statement: Sql) => Promise<Row[]>;

export function createLoader(db: Columnar): Loader {
  const stageDir = joinPath(db.dir, 'insights-stage');
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(stageDir, { recursive: true });
  let counter = 0;

  function write(name: string, body: string | Buffer, longest = typeof body === 'string' ? longestLineBytes(body) : 0): StagedFile {
    const file = joinPath(stageDir, `${counter++}-${name}.ndjson`);
    writeFileSync(file, body);
    return { file, longest };
  }

  const stageText = (text: StagedEvents): NonNullable<Staged['events']> => ({ ...write('events', text.bytes, text.longest), count: text.count, ranges: text.ranges });

  function stage(batch: LoadBatch): Staged {
    const text = batch.eventText ?? (batch.events && batch.events.length > 0 ? stageEvents(batch.events) : null);
    return {
      events: text ? stageText(text) : null,
      persons: batch.persons && batch.persons.length > 0 ? write('persons', personLines(batch.persons)) : null,
      groups: batch.groups && batch.groups.length > 0 ? write('groups', groupLines(batch.groups)) : null,
      mappings: batch.distinctIds && batch.distinctIds.length > 0 ? write('ids', distinctIdLines(batch.distinctIds)) : null,
    };
  }

  const filesOf = (staged: Staged) => [staged.events?.file, staged.persons?.file, staged.groups?.file, staged.mappings?.file].filter((f): f is string => !!f);
  const longestOf = (staged: Staged) => Math.max(staged.events?.longest ?? 0, staged.persons?.longest ?? 0, staged.groups?.longest ?? 0, staged.mappings?.longest ?? 0);

  function insertEvents(s: NonNullable<Staged['events']>): Sql {
    // Stored events of the batch's time ranges only: a redelivered event has its stored
    // twin's timestamp (the event store's row), so the anti-join needs no other rows.
    const slices = s.ranges.map((r) => raw(`SELECT project, uuid, timestamp FROM events WHERE timestamp BETWEEN ${instant(r.from)} AND ${instant(r.to)}`));
    return sql`INSERT INTO events
SELECT s.project, s.uuid, s.event, s.distinct_id, s.person_id, s.timestamp, ${HOT_SELECT}, s.properties
FROM (SELECT *, json_extract_string(properties, ${HOT_POINTERS}) AS hot FROM ${readJson(s, EVENT_COLUMNS)}) s
WHERE NOT EXISTS (SELECT 1 FROM (${join(slices, ' UNION ALL ')}) e WHERE e.project = s.project AND e.uuid = s.uuid AND e.timestamp = s.timestamp)`;
  }

  // `work`'s statements under a memory limit raised for lines of `longest` bytes.
  async function raised<T>(run: Run, longest: number, work: () => Promise<T>): Promise<T> {
    if (longest <= DEFAULT_OBJECT_BYTES) return work();
    await run(raw(`SET memory_limit = '${raisedMemoryLimit(db.memoryLimit, longest)}'`));
    try {
      return await work();
    } finally {
      await run(raw(`SET memory_limit = '${db.memoryLimit}'`));
    }
  }

  async function insert(run: Run, events: NonNullable<Staged['events']>): Promise<number> {
    const rows = await raised(run, events.longest, () => run(insertEvents(events)));
    return Number(rows[0]?.Count ?? 0);
  }

  // Everything of a batch but its events; resolves with the persons moved.
  async function loadRest(run: Run, staged: Staged, batch: Omit<LoadBatch, 'events' | 'eventText'>): Promise<number> {
    let moved = 0;
    if (staged.persons) {
      await run(sql`INSERT OR REPLACE INTO persons (project, id, created_at, properties, is_identified) SELECT project, id, created_at, properties, coalesce(is_identified, FALSE) FROM ${readJson(staged.persons, PERSON_COLUMNS)}`);
    }
    if (staged.groups) {
      await run(sql`INSERT OR REPLACE INTO groups (project, type_index, key, created_at, properties) SELECT project, type_index, key, created_at, properties FROM ${readJson(staged.groups, GROUP_COLUMNS)}`);
    }
    if (staged.mappings) {
      await run(sql`CREATE OR REPLACE TEMP TABLE mapping_stage AS SELECT DISTINCT ON (project, distinct_id) project, distinct_id, person_id FROM ${readJson(staged.mappings, MAPPING_COLUMNS)}`);
      await run(raw(`CREATE OR REPLACE TEMP TABLE person_moves AS
SELECT DISTINCT d.project, d.person_id AS old_id, m.person_id AS new_id
FROM person_distinct_ids d JOIN mapping_stage m ON m.project = d.project AND m.distinct_id = d.distinct_id
WHERE d.person_id <> m.person_id`));
      const count = await run(raw('SELECT count(*) AS n FROM person_moves'));
      moved = Number(count[0].n);
      if (moved > 0) {
        await run(raw('UPDATE events SET person_id = mv.new_id FROM person_moves mv WHERE events.project = mv.project AND events.person_id = mv.old_id'));
        await run(raw('UPDATE person_distinct_ids SET person_id = mv.new_id FROM person_moves mv WHERE person_distinct_ids.project = mv.project AND person_distinct_ids.person_id = mv.old_id'));
      }
      await run(raw('INSERT OR REPLACE INTO person_distinct_ids SELECT project, distinct_id, person_id FROM mapping_stage'));
    }
    for (const p of batch.deletedPersons ?? []) {
      await run(sql`DELETE FROM persons WHERE project = ${p.project_id} AND id = ${text(p.id)}::UUID`);
      await run(sql`DELETE FROM person_distinct_ids WHERE project = ${p.project_id} AND person_id = ${text(p.id)}::UUID`);
    }
    if (batch.position) {
      await run(sql`INSERT OR REPLACE INTO positions VALUES (${text(batch.position.name)}, ${batch.position.seq})`);
    }
    return moved;
  }

  const removeAll = (files: readonly string[]) => { for (const f of files) rmSync(f, { force: true }); };

  return {
    load(batch) {
      const staged = stage(batch);
      return db.write(async (run) => {
        const inserted = staged.events ? await insert(run, staged.events) : 0;
        const moved = await raised(run, longestOf({ ...staged, events: null }), () => loadRest(run, staged, batch));
        return { inserted, moved };
      }).finally(() => removeAll(filesOf(staged)));
    },
    loadInParts(read) {
      const files: string[] = [];
      return db.write(async (run) => {
        let inserted = 0;
        // The part DuckDB is taking: one statement at a time on the load connection.
        let inserting: Promise<void> | null = null;
        const send = async (part: StagedEvents) => {
          const staged = stageText(part);
          files.push(staged.file);
          if (inserting !== null) await inserting;
          const started = insert(run, staged).then((n) => { inserted += n; });
          // Awaited at the next part or after the last: not an unhandled rejection meanwhile.
          started.catch(() => undefined);
          inserting = started;
        };
        try {
          const rest = await read(send);
          if (inserting !== null) await inserting;
          inserting = null;
          const staged = stage(rest);
          files.push(...filesOf(staged));
          const moved = await raised(run, longestOf(staged), () => loadRest(run, staged, rest));
          return { inserted, moved };
        } finally {
          // A read that failed: its part's statement ends before the transaction rolls back.
          if (inserting !== null) await (inserting as Promise<void>).catch(() => undefined);
        }
      }).finally(() => removeAll(files));
    },
    async position(name) {
      const rows = await db.query(sql`SELECT seq FROM positions WHERE name = ${text(name)}`);
      return rows.length === 0 ? 0 : Number(rows[0].seq);
    },
  };
}
