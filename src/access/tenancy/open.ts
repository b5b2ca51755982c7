// CLI commands work on the data directory directly (LMDB allows a running server
// alongside): open it, run, close. Their writes take the same write path as the server's:
// embedded, or the control stream, as the opener the service hands them does.
import type { DataDirOpener } from '../../state/index.js';
import type { AccessTables } from '../tables.js';
import { createTenancyStore, type TenancyStore } from './store.js';
import { tenancyCommands } from './commands.js';

export async function withTenancy<T>(dataDir: string, run: (tenancy: TenancyStore) => T | Promise<T>, open: DataDirOpener<AccessTables>): Promise<T> {
  const opened = await open(dataDir, tenancyCommands);
  try {
    return await run(createTenancyStore(opened.store, opened.writes));
  } finally {
    await opened.close();
  }
}
