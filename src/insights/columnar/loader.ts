// Micro-batch loads into the columnar store, each one transaction: new events (idempotent
// on uuid), persons' current properties, groups' current state, the current person of distinct ids (a change moves
// the old person's events to the new one: how merges reach analytics) and the loader's log
// position, so a crash replays exactly the batches that did not commit.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { join, raw, sql, text, timestamp, type Sql } from '../planner/sql.js';
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
  return sql`read_json(${text(staged.file)}, format = 'newline_delimited', columns = ${raw(columns)}${size})`;
}

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
  position(name: string): Promise<number>;
}

export function createLoader(db: Columnar): Loader {
  const stageDir = joinPath(db.dir, 'insights-stage');
  rmSync(stageDir, { recursive: true, force: true });
  mkdirSync(stageDir, { recursive: true });
  let counter = 0;

  function stage(batch: LoadBatch): Staged {
    const n = counter++;
    const write = (name: string, body: string | Buffer, longest = typeof body === 'string' ? longestLineBytes(body) : 0): StagedFile => {
      const file = joinPath(stageDir, `${n}-${name}.ndjson`);
      writeFileSync(file, body);
      return { file, longest };
    };
    const text = batch.eventText ?? (batch.events && batch.events.length > 0 ? stageEvents(batch.events) : null);
    const events: Staged['events'] = text ? { ...write('events', text.bytes, text.longest), count: text.count, ranges: text.ranges } : null;
    return {
      events,
      persons: batch.persons && batch.persons.length > 0 ? write('persons', personLines(batch.persons)) : null,
      groups: batch.groups && batch.groups.length > 0 ? write('groups', groupLines(batch.groups)) : null,
      mappings: batch.distinctIds && batch.distinctIds.length > 0 ? write('ids', distinctIdLines(batch.distinctIds)) : null,
    };
  }

  function insertEvents(s: NonNullable<Staged['events']>): Sql {
    // Stored events of the batch's time ranges only: a redelivered event has its stored
    // twin's timestamp (the event store's row), so the anti-join needs no other rows.
    const slices = s.ranges.map((r) => sql`SELECT project, uuid, timestamp FROM events WHERE timestamp BETWEEN ${timestamp(r.from * 1000)} AND ${timestamp(r.to * 1000)}`);
    return sql`INSERT INTO events
SELECT s.project, s.uuid, s.event, s.distinct_id, s.person_id, s.timestamp, ${HOT_SELECT}, s.properties
FROM (SELECT *, json_extract_string(properties, ${HOT_POINTERS}) AS hot FROM ${readJson(s, EVENT_COLUMNS)}) s
WHERE NOT EXISTS (SELECT 1 FROM (${join(slices, ' UNION ALL ')}) e WHERE e.project = s.project AND e.uuid = s.uuid AND e.timestamp = s.timestamp)`;
  }

  return {
    load(batch) {
      const staged = stage(batch);
      const files = [staged.events?.file, staged.persons?.file, staged.groups?.file, staged.mappings?.file].filter((f): f is string => !!f);
      const longest = Math.max(staged.events?.longest ?? 0, staged.persons?.longest ?? 0, staged.groups?.longest ?? 0, staged.mappings?.longest ?? 0);
      const raise = longest > DEFAULT_OBJECT_BYTES;
      return db.write(async (run) => {
        if (raise) await run(raw(`SET memory_limit = '${raisedMemoryLimit(db.memoryLimit, longest)}'`));
        try {
          return await loadStaged(run);
        } finally {
          if (raise) await run(raw(`SET memory_limit = '${db.memoryLimit}'`));
        }
      }).finally(() => { for (const f of files) rmSync(f, { force: true }); });

      async function loadStaged(run: (statement: Sql) => Promise<Row[]>) {
        let inserted = 0;
        let moved = 0;
        if (staged.events) {
          const rows = await run(insertEvents(staged.events));
          inserted = Number(rows[0]?.Count ?? 0);
        }
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
        return { inserted, moved };
      }
    },
    async position(name) {
      const rows = await db.query(sql`SELECT seq FROM positions WHERE name = ${text(name)}`);
      return rows.length === 0 ? 0 : Number(rows[0].seq);
    },
  };
}
