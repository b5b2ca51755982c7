// The face destinations show where modules are wired (src/main.ts): the projects'
// transformations as the event store's step before storing (src/events/pre-store.ts,
// docs/decisions/0044). Light: the step's code (./runtime/transformer.ts) loads only in the
// event store's thread.
import type { PreStoreSource } from '../events/module.js';
import type { TransformerSettings } from './runtime/transformer.js';

export const transformationsBeforeStore: PreStoreSource = async (config) => {
  const { geoIpPath } = await import('../geoip/database.js');
  const settings: TransformerSettings = {
    dataDir: config.dataDir, siteUrl: config.siteUrl, geoipDb: geoIpPath(config.geoipDb), watcherLockMs: config.hog.watcherLockSeconds * 1000,
  };
  return { module: new URL('./runtime/transformer.js', import.meta.url).href, settings };
};
