// How the CLI's commands open a data dir (src/state/open.ts): every domain's tables, and
// the write path serve would use: embedded, the data dir's LMDB; with NATS, the control
// stream over a cluster handle of the command's own (the service is loaded only then).
import type { Config } from '../settings.js';
import { openStore } from '../store/index.js';
import { tables, type Store } from '../tables.js';
import { createLocalWrites, type DataDirOpener } from '../state/index.js';

export const cliDataDir = (config: Readonly<Config>): DataDirOpener<Store> => async (dataDir, specs) => {
  const store = openStore(dataDir, tables);
  try {
    if (!config.natsUrl) return { store, writes: createLocalWrites(store, specs), close: () => store.close() };
    const { writes, close } = await natsWrites(config, store);
    return { store, writes, close: async () => { await close(); await store.close(); } };
  } catch (err) {
    await store.close();
    throw err;
  }
};

async function natsWrites(config: Readonly<Config>, store: Store) {
  const [{ openWrites }, { createLogger }, { commandCluster }] = await Promise.all([import('../main.js'), import('../logger.js'), import('./cluster.js')]);
  const cluster = await commandCluster(config);
  try {
    const { writes, control } = await openWrites(cluster, store, createLogger('silent'));
    return { writes, close: async () => { await control?.close(); await cluster.close(); } };
  } catch (err) {
    await cluster.close();
    throw err;
  }
}
