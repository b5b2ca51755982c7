// CLI commands work on the data directory directly (LMDB allows a running server
// alongside): open it, run, close. Their writes take the same write path as the server's:
// embedded by default, the control stream when the service hands an opener for it.
import { openStore } from '../../store/env.js';
import { createLocalWrites, type WritesOpener } from '../../state/index.js';
import { createTenancyStore, type TenancyStore } from './store.js';
import { tenancyCommands } from './commands.js';

export async function withTenancy<T>(dataDir: string, run: (tenancy: TenancyStore) => T | Promise<T>, openWrites?: WritesOpener): Promise<T> {
  const store = openStore(dataDir);
  try {
    const opened = openWrites ? await openWrites(store) : { writes: createLocalWrites(store, tenancyCommands), close: async () => undefined };
    try {
      return await run(createTenancyStore(store, opened.writes));
    } finally {
      await opened.close();
    }
  } finally {
    await store.close();
  }
}
