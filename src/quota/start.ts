// The quota module's start: the meter that counts feature flag requests (flushed into the
// stored usage, and once more at close) and the quota API.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import type { QuotaTables } from './tables.js';
import { createFlagMeter, type FlagMeter } from './meter.js';
import { quotaRoutes } from './routes.js';

export type QuotaTablesUsed = QuotaTables;

export interface QuotaProvides {
  meter: FlagMeter;
}

export function startQuota(ctx: NodeContext<QuotaTablesUsed>, use: Use): Started<QuotaProvides> {
  const { auth, tenancy } = use(accessModule);
  const meter = createFlagMeter(ctx.store, ctx.writes, { flushMs: ctx.config.quotaFlushMs });
  return {
    provides: { meter },
    routes: quotaRoutes({ auth, meter, tenancy }),
    close: () => meter.flush(),
  };
}
