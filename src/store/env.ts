// The LMDB environments of a data dir, and in them the tables every domain declares
// (./table.ts). The list of declarations is handed in (src/tables.ts holds it, beside
// main.ts), so the store imports no domain; every thread opens the same list, so each
// table is opened with identical options wherever it is read.
import { open, type RootDatabase, type Database } from 'lmdb';
import { mkdirSync, accessSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { Declarations, Tables } from './table.js';

export interface Environments {
  path: string;
  root: RootDatabase;
  // The embedded event log lives in its own environment: LMDB allows one writer per
  // environment, so capture's appends never queue behind a consumer's transaction,
  // and its commits are synchronous to disk (see docs/decisions/0001).
  logRoot: RootDatabase;
  logPath: string;
  close(): Promise<void>;
}

// The store opened with a list of declarations: every table of every domain in it.
export type StoreOf<L extends readonly Declarations[]> = Environments & Opened<L>;
type Opened<L extends readonly Declarations[]> = L extends readonly [infer D extends Declarations, ...infer Rest extends readonly Declarations[]]
  ? Tables<D> & Opened<Rest>
  : unknown;

// How code that is not handed the list of declarations (a CLI command, a snapshot) opens
// a data dir: main.ts hands it this, bound to the list.
export type OpenStore<T> = (dataDir: string) => T & Environments;

export class DataDirError extends Error {}

// Address space reserved for each environment's map up front (virtual: the file grows only
// as data is written). Left to lmdb-js, a map starts at 128 KB and doubles as the data
// grows, and each map it outgrows stays mapped, with the pages read through it resident,
// while a reader of that generation lives: a 1,000,000-event load left five generations
// of hedgerow.lmdb mapped, 2.6 GB of file-backed RSS for a 1.1 GB file. A larger store
// still grows past these, as before.
const MAIN_MAP_BYTES = 2 ** 38;
const LOG_MAP_BYTES = 2 ** 36;

const RESERVED = new Set(['path', 'root', 'logRoot', 'logPath', 'close']);

// Each table once, under a name of its own in its environment.
function checkDeclarations(declared: readonly Declarations[]): void {
  const names = new Set<string>();
  const databases = new Set<string>();
  for (const declarations of declared) {
    for (const [name, table] of Object.entries(declarations)) {
      if (RESERVED.has(name) || names.has(name)) throw new Error(`two tables are named ${name}`);
      names.add(name);
      const database = `${table.env}:${table.name}`;
      if (databases.has(database)) throw new Error(`two tables open the database ${table.name} of the ${table.env} environment`);
      databases.add(database);
    }
  }
}

export function openStore<const L extends readonly Declarations[]>(dataDir: string, declared: L, opts: { readOnly?: boolean } = {}): StoreOf<L> {
  checkDeclarations(declared);
  try {
    mkdirSync(dataDir, { recursive: true });
    accessSync(dataDir, constants.R_OK | constants.W_OK);
  } catch (err) {
    throw new DataDirError(`data directory ${dataDir} is not usable: ${(err as Error).message}`);
  }
  const path = join(dataDir, 'hedgerow.lmdb');
  const logPath = join(dataDir, 'log.lmdb');
  const all = declared.flatMap((declarations) => Object.entries(declarations));
  const count = (env: string) => all.filter(([, table]) => table.env === env).length;
  let root: RootDatabase;
  let logRoot: RootDatabase;
  try {
    root = open({ path, maxDbs: Math.max(32, count('main')), mapSize: MAIN_MAP_BYTES, readOnly: opts.readOnly ?? false });
    // Without overlapping sync a commit resolves only once it is synced to disk.
    logRoot = open({ path: logPath, maxDbs: Math.max(2, count('log')), mapSize: LOG_MAP_BYTES, overlappingSync: false, readOnly: opts.readOnly ?? false });
  } catch (err) {
    throw new DataDirError(`cannot open LMDB in ${dataDir}: ${(err as Error).message}`);
  }
  const tables: Record<string, Database> = {};
  for (const [name, table] of all) tables[name] = (table.env === 'log' ? logRoot : root).openDB({ name: table.name, ...table.options });
  const environments: Environments = {
    path, root, logRoot, logPath,
    close: async () => { await logRoot.close(); await root.close(); },
  };
  // Each declared table under its name: what StoreOf<L> says, which the compiler cannot follow through the loop.
  return { ...tables, ...environments } as StoreOf<L>;
}
