// CLI commands work on the data directory directly (LMDB allows a running server
// alongside): open it, run, close.
import { openStore } from '../store/env.js';
import { createTenancyStore, type TenancyStore } from './store.js';

export async function withTenancy<T>(dataDir: string, run: (tenancy: TenancyStore) => T): Promise<T> {
  const store = openStore(dataDir);
  try {
    return run(createTenancyStore(store));
  } finally {
    await store.close();
  }
}
