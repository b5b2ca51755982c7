// The ingestion-warnings module: why events were dropped or partly applied (recorded by the
// event store), summarized by its API in the node's scan pool.
import { nodeModule } from '../modules/index.js';

export const ingestionWarningsModule = nodeModule({
  name: 'ingestion-warnings',
  start: async (ctx, use) => {
    const [{ accessModule }, { warningRoutes }] = await Promise.all([import('../access/module.js'), import('./routes.js')]);
    return { routes: warningRoutes({ auth: use(accessModule).auth, scans: ctx.scans }) };
  },
});
