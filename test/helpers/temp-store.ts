// A store of its own for each test of a suite: opened in a fresh temporary directory
// before the test, closed and removed after it.
import { rmSync } from 'node:fs';
import type { Test } from 'uvu';
import { openStore, type Store } from '../../src/store/env.js';
import { tempDir } from './server.js';

// `opened` receives each test's store before the test runs.
export function storePerTest(s: Test, prefix: string, opened: (store: Store) => void): void {
  let dir: string;
  let store: Store;
  s.before.each(() => {
    dir = tempDir(prefix);
    store = openStore(dir);
    opened(store);
  });
  s.after.each(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
}
