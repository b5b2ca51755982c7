// How the CLI's commands open a data dir (the Service's openDataDir, src/modules/command.ts):
// every domain's tables, and the write path serve would use: embedded, the data dir's LMDB;
// with NATS, the node's state opened as serve opens it (joined from a snapshot when the data
// dir is empty, caught up with the control stream, applying every module's commands) over a
// cluster handle of the command's own. The service is loaded only then.
import type { Config } from '../settings.js';
import { openStore } from '../store/index.js';
import { tables, type Store } from '../tables.js';
import { createLocalWrites, type AnyCommandSpec, type DataDirOpener } from '../state/index.js';

export const cliDataDir = (config: Readonly<Config>, allSpecs: () => Promise<readonly AnyCommandSpec<Store>[]>): DataDirOpener<Store> =>
  async (dataDir, specs) => {
    if (!config.natsUrl) {
      const store = openStore(dataDir, tables);
      return { store, writes: createLocalWrites(store, specs), close: () => store.close() };
    }
    const [{ openNode }, { createLogger }, { commandCluster }] = await Promise.all([import('../node/open.js'), import('../logger.js'), import('./cluster.js')]);
    const cluster = await commandCluster(config);
    try {
      const { store, writes, control } = await openNode(cluster, { ...config, dataDir }, createLogger('silent'), await allSpecs());
      return { store, writes, close: async () => { await control?.close(); await cluster.close(); await store.close(); } };
    } catch (err) {
      await cluster.close();
      throw err;
    }
  };
