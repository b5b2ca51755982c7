// The destinations module: hog functions (their API, templates, logs and metrics) and the
// destinations consumer that runs them on events and delivers what they fetch. Deliveries
// leave the service, so the consumer runs on one node of a cluster at a time: the one
// holding its claim (docs/decisions/0031).
import { nodeModule } from '../modules/index.js';
import type { DestinationsTablesUsed } from './start.js';

export const destinationsModule = nodeModule<undefined, DestinationsTablesUsed>({
  name: 'destinations',
  writes: async () => (await import('./commands.js')).hogFunctionCommands,
  consumers: async (config, role) => {
    if (role !== 'serve') return [];
    const [{ registered }, { destinationsConsumerDeclaration }] = await Promise.all([import('../log/consumers/index.js'), import('./runtime/consumer-declaration.js')]);
    return [registered(destinationsConsumerDeclaration, {
      dataDir: config.dataDir, siteUrl: config.siteUrl, fetchAllow: config.hog.fetchAllow, hogWorkers: config.hog.workers,
      watcherLockMs: config.hog.watcherLockSeconds * 1000,
    })];
  },
  start: async (ctx, use) => (await import('./start.js')).startDestinations(ctx, use),
});
