// The columnar store: one DuckDB database file under the data dir, a connection for loads
// (one writer, batches in order) and one for queries (DuckDB's MVCC lets queries read the
// last committed batch while the next loads).
import { mkdirSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBInstance } from './duckdb.js';
import { render, type Sql } from '../planner/sql.js';
import type { Row } from '../planner/context.js';
import { duckValues } from './params.js';
import { DDL, SCHEMA_VERSION } from './schema.js';

export const DATABASE_FILE = 'insights.duckdb';
const QUERY_CONNECTIONS = 2;
// DuckDB's own default is 80% of the machine's memory, which its buffer pool fills with
// the table's blocks as loads and queries touch them: the service's memory then grows
// with its history. Above this, DuckDB evicts cached blocks and spills large query
// intermediates to <database>.tmp.
export const DEFAULT_MEMORY_LIMIT = '512MB';

export interface ColumnarOptions {
  /** Directory of the database file (created if missing). */
  dir: string;
  /** DuckDB worker threads (default: DuckDB's, the number of cores). */
  threads?: number;
  /** DuckDB's memory limit, e.g. "2GB" (default: DEFAULT_MEMORY_LIMIT). */
  memoryLimit?: string;
}

export interface Columnar {
  readonly dir: string;
  /** The memory limit it was opened with (a size such as "512MB"). */
  readonly memoryLimit: string;
  /** Runs one planned statement on a query connection; an abort interrupts it. */
  query(statement: Sql, signal?: AbortSignal): Promise<Row[]>;
  /** Runs statements on the load connection, in one transaction. */
  write<T>(work: (run: (statement: Sql) => Promise<Row[]>) => Promise<T>): Promise<T>;
  /** Interrupts the queries running, waits for them and the load in progress, then closes. */
  close(): Promise<void>;
}

async function runOn(connection: DuckDBConnection, statement: Sql): Promise<Row[]> {
  const { text, params } = render(statement);
  const { values, types } = duckValues(params);
  const reader = await connection.runAndReadAll(text, values, types);
  return reader.getRowObjectsJS() as Row[];
}

export async function openColumnar(options: ColumnarOptions): Promise<Columnar> {
  mkdirSync(options.dir, { recursive: true });
  const config: Record<string, string> = {
    // Nothing is ever downloaded: the json, parquet and icu extensions are built in.
    autoinstall_known_extensions: 'false',
    preserve_insertion_order: 'false',
    // A checkpoint rewrites what the write-ahead log holds; a batch of 50,000 events is
    // about 20 MB of it, so the default 16 MB checkpointed after every batch.
    checkpoint_threshold: '256MB',
    // DuckDB allocates through its own jemalloc, which keeps the pages a load or query freed
    // until that thread allocates again: after a burst of large events the insights thread
    // held tens of MB it no longer used (bench/RESULTS.md, "memory after a burst"). A
    // background thread returns them after jemalloc's decay time, off the load's path.
    allocator_background_threads: 'true',
  };
  if (options.threads !== undefined) config.threads = String(options.threads);
  config.memory_limit = options.memoryLimit ?? DEFAULT_MEMORY_LIMIT;
  const instance = await DuckDBInstance.create(joinPath(options.dir, DATABASE_FILE), config);
  const loadConnection = await instance.connect();
  // A connection runs one statement at a time: queries take one of a few, or wait.
  const idle: DuckDBConnection[] = [];
  for (let i = 0; i < QUERY_CONNECTIONS; i++) idle.push(await instance.connect());
  const waiting: ((c: DuckDBConnection) => void)[] = [];
  const all = [loadConnection, ...idle];
  // Text cast to a TIMESTAMPTZ without an offset reads as UTC, whatever the host's zone.
  for (const c of all) await c.run("SET TimeZone = 'UTC'");
  for (const ddl of DDL) await loadConnection.run(ddl);
  await loadConnection.run(`INSERT OR REPLACE INTO meta VALUES ('schema_version', '${SCHEMA_VERSION}')`);

  // Loads are serialized: a batch starts once the previous one has committed.
  let tail: Promise<unknown> = Promise.resolve();
  // The statements running now. Closing a connection while DuckDB still runs a statement
  // on it frees what its threads are using (the process died of SIGSEGV in CI when a
  // server closed with a query in flight): close interrupts them and waits.
  const running = new Map<DuckDBConnection, Promise<unknown>>();
  let closed: Promise<void> | undefined;
  const closedError = () => new Error('the columnar store is closed');
  return {
    dir: options.dir,
    memoryLimit: config.memory_limit,
    async query(statement, signal) {
      signal?.throwIfAborted();
      if (closed) throw closedError();
      const connection = idle.pop() ?? (await new Promise<DuckDBConnection>((resolve) => waiting.push(resolve)));
      const interrupt = () => connection.interrupt();
      signal?.addEventListener('abort', interrupt);
      try {
        signal?.throwIfAborted();
        if (closed) throw closedError();
        const result = runOn(connection, statement);
        running.set(connection, result);
        return await result;
      } finally {
        running.delete(connection);
        signal?.removeEventListener('abort', interrupt);
        const next = waiting.shift();
        if (next) next(connection);
        else idle.push(connection);
      }
    },
    write<T>(work: (run: (statement: Sql) => Promise<Row[]>) => Promise<T>): Promise<T> {
      if (closed) return Promise.reject(closedError());
      const next = tail.then(async () => {
        await loadConnection.run('BEGIN TRANSACTION');
        try {
          const result = await work((statement) => runOn(loadConnection, statement));
          await loadConnection.run('COMMIT');
          return result;
        } catch (err) {
          await loadConnection.run('ROLLBACK');
          throw err;
        }
      });
      tail = next.catch(() => undefined);
      return next;
    },
    close() {
      closed ??= (async () => {
        for (const connection of running.keys()) connection.interrupt();
        await Promise.allSettled([tail, ...running.values()]);
        for (const c of all) c.closeSync();
        instance.closeSync();
      })();
      return closed;
    },
  };
}
