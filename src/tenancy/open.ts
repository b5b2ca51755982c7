// CLI commands work on the data directory directly (LMDB allows a running server
// alongside): open it, run, close. Their writes take the same write path as the server's.
import { openStore } from '../store/env.js';
import { createLocalWrites } from '../state/index.js';
import { createTenancyStore, type TenancyStore } from './store.js';
import { tenancyCommands } from './commands.js';

export async function withTenancy<T>(dataDir: string, run: (tenancy: TenancyStore) => T | Promise<T>): Promise<T> {
  const store = openStore(dataDir);
  try {
    return await run(createTenancyStore(store, createLocalWrites(store, tenancyCommands)));
  } finally {
    await store.close();
  }
}
