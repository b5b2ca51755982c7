// The events module: the event store (a log consumer applying events with their persons,
// on every node and every replica) and the events API.
import { nodeModule } from '../modules/index.js';
import type { EventsTablesUsed } from './start.js';

export const eventsModule = nodeModule<undefined, EventsTablesUsed>({
  name: 'events',
  consumers: async (config) => {
    const [{ registered }, { eventStoreConsumerDeclaration }, { geoIpPath }] = await Promise.all([
      import('../log/consumers/index.js'), import('./store-consumer-declaration.js'), import('../geoip/database.js'),
    ]);
    return [registered(eventStoreConsumerDeclaration, { cachedPersons: config.personCacheSize, dataDir: config.dataDir, siteUrl: config.siteUrl, geoipDb: geoIpPath(config.geoipDb) })];
  },
  start: async (ctx, use) => (await import('./start.js')).startEvents(ctx, use),
});
