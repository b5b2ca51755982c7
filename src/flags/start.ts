// The flags module's start: GeoIP (loaded in the background: the node is not ready until it
// is, or until loading it failed, which is logged and leaves flags without $geoip_*), the
// flag evaluation pool, and the routes.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import type { QuotaTables } from '../quota/index.js';
import { quotaModule } from '../quota/module.js';
import type { PersonsTables } from '../persons/index.js';
import { personsModule } from '../persons/module.js';
import { deferredGeoIp, geoIpPath, loadGeoIp } from '../geoip/database.js';
import { createLazyWorkerPool, createWorkerPool } from '../pools/index.js';
import type { FlagsTables } from './tables.js';
import type { FlagTasks, FlagWorkerData } from './tasks.js';
import { flagRoutes } from './api/flag-routes.js';
import { cohortRoutes } from './api/cohort-routes.js';
import { feedRoutes } from './api/feed-routes.js';
import { decideRoutes } from './decide-routes.js';
import { remoteConfigRoutes } from './remote-config-routes.js';

const FLAG_WORKER_URL = new URL('../../workers/flags.js', import.meta.url);

export type FlagsTablesUsed = FlagsTables & PersonsTables & QuotaTables;

export function startFlags(ctx: NodeContext<FlagsTablesUsed>, use: Use): Started {
  const { config, log, store, writes } = ctx;
  const { auth, tenancy, access } = use(accessModule);
  const { meter } = use(quotaModule);
  const { operations } = use(personsModule);
  const geoipPath = geoIpPath(config.geoipDb);
  const geoip = deferredGeoIp(
    geoipPath === null ? null : loadGeoIp(geoipPath),
    (err) => log.error('GeoIP database could not be loaded; flags evaluate without $geoip_* properties', { error: err.message }),
  );
  // Lazy, a node that never answers /decide (most test servers) starts no flag thread.
  const pool = (config.flagPool === 'lazy' ? createLazyWorkerPool : createWorkerPool)<FlagTasks, FlagWorkerData>({
    worker: FLAG_WORKER_URL, threads: config.flagWorkers, maxBatch: 32, workerData: { dataDir: config.dataDir },
  });
  return {
    routes: [
      ...flagRoutes({ auth, store, writes, tenancy }),
      ...cohortRoutes({ auth, store, writes, tenancy }),
      ...feedRoutes({ auth, store, meter, tenancy, access }),
      ...decideRoutes({
        persons: operations, meter, tenancy, pool, geoip, log,
        // A /decide body decodes on the HTTP thread, so it may not inflate past what it may be
        // sent as: capture's 64 MiB cap there would hold the thread for seconds (an lz64 or
        // gzip bomb), while real flag requests are kilobytes.
        maxDecompressedBytes: config.capture.maxEventBodyBytes, bodyLimit: config.capture.maxEventBodyBytes,
      }),
      ...remoteConfigRoutes({ store, tenancy }),
    ],
    ready: () => ({ geoip: geoip.ready() }),
    close: () => pool.close(),
  };
}
