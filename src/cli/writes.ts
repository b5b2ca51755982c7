// How the CLI's commands open a data dir (src/state/open.ts): every domain's tables, and
// the write path serve would use: embedded, the data dir's LMDB; with NATS, the control
// stream (the service is loaded only then).
import type { Config } from '../settings.js';
import { openStore } from '../store/index.js';
import { tables, type Store } from '../tables.js';
import { createLocalWrites, type DataDirOpener } from '../state/index.js';

export const cliDataDir = (config: Readonly<Config>): DataDirOpener<Store> => async (dataDir, specs) => {
  const store = openStore(dataDir, tables);
  try {
    const { writes, control } = config.natsUrl ? await natsWrites(config, store) : { writes: createLocalWrites(store, specs), control: null };
    return { store, writes, close: async () => { await control?.close(); await store.close(); } };
  } catch (err) {
    await store.close();
    throw err;
  }
};

async function natsWrites(config: Readonly<Config>, store: Store) {
  const [{ openWrites }, { createLogger }] = await Promise.all([import('../main.js'), import('../logger.js')]);
  return openWrites(config, store, createLogger('silent'));
}
