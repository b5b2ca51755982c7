// A table as its domain declares it (each domain's tables.ts): the name of its LMDB
// database, the environment it lives in and the options it is opened with. The store
// (./env.ts) opens every domain's declarations, and nothing else opens a database, so
// every thread opens each one with the same options (lmdb-js needs that).
import type { Database, Key, RootDatabase } from 'lmdb';

// hedgerow.lmdb, or log.lmdb: the embedded event log's own environment (./env.ts says why).
export type Environment = 'main' | 'log';

// What a table may be opened with. lmdb-js passes msgpackr options (useRecords,
// variableMapSize) through; its typings do not list them.
export interface TableOptions {
  encoding?: 'binary';
  useRecords?: false;
  variableMapSize?: true;
}

// V and K are the value and key types the table's Database is typed with: `types` is
// never set, it only carries them for the compiler.
export interface Table<V, K extends Key> {
  readonly name: string;
  readonly env: Environment;
  readonly options: TableOptions;
  readonly types?: { value: V; key: K };
}

export function table<V, K extends Key>(name: string, options: TableOptions = {}, env: Environment = 'main'): Table<V, K> {
  return { name, env, options };
}

// Events and person records are written once per event or change: msgpack without
// records (plain maps) encodes them in 60–80% of the time and decodes them faster
// too. (Without shared structures, records repeat their key list inside every value.)
// Values written with records earlier still decode. variableMapSize: an object of 65,536
// keys or more (a client's properties, a person's accumulated ones) needs a 32-bit map
// header, which msgpackr's fixed 16-bit one cannot hold; sizing each map also encodes
// faster (Object.keys rather than for-in, measured 3.4–3.9 vs 5.9–6.4 µs for an event row).
export const plainMaps: TableOptions = { useRecords: false, variableMapSize: true };

// One domain's declarations: the name its code reads each table by → the table.
export type Declarations = { readonly [name: string]: Table<unknown, Key> };

// What a domain's code is handed: its tables opened, and the main environment, whose
// transactions span every domain's tables.
export type Tables<D extends Declarations> = { root: RootDatabase } & {
  [N in keyof D]: D[N] extends Table<infer V, infer K> ? Database<V, K> : never;
};
