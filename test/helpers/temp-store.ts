// A store of its own for each test of a suite: opened in a fresh temporary directory
// before the test, closed and removed after it.
import { rmSync } from 'node:fs';
import type { Test } from 'uvu';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { PERSONS_GENERATION_KEY } from '../../src/persons/tables.js';
import { tempDir } from './temp-dir.js';

// `opened` receives each test's store before the test runs.
export function storePerTest(s: Test, prefix: string, opened: (store: Store) => void): void {
  let dir: string;
  let store: Store;
  s.before.each(() => {
    dir = tempDir(prefix);
    store = openStore(dir, tables);
    opened(store);
  });
  s.after.each(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

// Stores of replicas for each test of a suite: the returned `open()` opens another in a
// fresh temporary directory; all a test opened are closed and removed after it.
export function replicasPerTest(s: Test, prefix: string): () => Store {
  let dirs: string[] = [];
  let stores: Store[] = [];
  s.after.each(async () => {
    for (const st of stores) await st.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    dirs = [];
    stores = [];
  });
  return () => {
    const dir = tempDir(prefix);
    dirs.push(dir);
    const st = openStore(dir, tables);
    stores.push(st);
    return st;
  };
}

// What a database of a replica holds, to compare two replicas by: the persons generation
// (personSeq under PERSONS_GENERATION_KEY) counts a node's own consumer transactions for
// its person cache, node-local by design (docs/decisions/0031), so it is left out.
export function replicaContents(store: Store, db: 'persons' | 'personDistinctIds' | 'personIds' | 'personRedirects' | 'personSeq' | 'groupTypes' | 'groups' | 'eventRows' | 'hashKeyOverrides'): unknown[][] {
  return [...store[db].getRange()]
    .filter(({ key }) => !(db === 'personSeq' && key === PERSONS_GENERATION_KEY)).map(({ key, value }) => [key, value]);
}
