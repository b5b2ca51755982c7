// The ingestion-warnings module: why events were dropped or partly applied (recorded by the
// event store), summarized by its API in the events module's scan pool.
import { nodeModule } from '../modules/index.js';

export const ingestionWarningsModule = nodeModule({
  name: 'ingestion-warnings',
  start: async (_ctx, use) => {
    const [{ accessModule }, { eventsModule }, { warningRoutes }] = await Promise.all([
      import('../access/index.js'), import('../events/index.js'), import('./routes.js'),
    ]);
    return { routes: warningRoutes({ auth: use(accessModule).auth, scans: use(eventsModule).scans }) };
  },
});
