// The events module: the event store (a log consumer applying events with their persons,
// on every node and every replica) and the events API. The step its event store runs before
// storing each batch (./pre-store.ts) is given where modules are wired (src/main.ts), so
// events knows no domain that provides one.
import type { Config } from '../settings.js';
import { nodeModule, type NodeModule } from '../modules/index.js';
import type { PreStoreDeclaration } from './pre-store.js';
import type { EventsTablesUsed } from './start.js';

// The step's declaration under this node's settings.
export type PreStoreSource = (config: Readonly<Config>) => Promise<PreStoreDeclaration>;

export function createEventsModule(preStore?: PreStoreSource): NodeModule<undefined, EventsTablesUsed> {
  return nodeModule<undefined, EventsTablesUsed>({
    name: 'events',
    consumers: async (config) => {
      const [{ registered }, { eventStoreConsumerDeclaration }] = await Promise.all([
        import('../log/consumers/index.js'), import('./store-consumer-declaration.js'),
      ]);
      return [registered(eventStoreConsumerDeclaration, { cachedPersons: config.personCacheSize, preStore: preStore ? await preStore(config) : null })];
    },
    start: async (ctx, use) => (await import('./start.js')).startEvents(ctx, use),
  });
}
