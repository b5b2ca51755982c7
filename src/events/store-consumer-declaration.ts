// The event store's consumer (./store-consumer.ts) as the service registers it: its code
// loads only in its own thread.
import { declareConsumer } from '../log/consumers/index.js';
import { EVENT_STORE_CONSUMER } from './consumer.js';
import type { PreStoreDeclaration } from './pre-store.js';

export const eventStoreConsumerDeclaration = declareConsumer<EventStoreSettings>({
  module: new URL('./store-consumer.js', import.meta.url).href,
  name: EVENT_STORE_CONSUMER,
  startsAt: 'beginning',
  // The person cache (~1.8 KB a person with 30-odd properties) and a batch (16 MiB of log:
  // ~100 MB decoded), twice over.
  heapMb: (settings) => 512 + Math.ceil((settings.cachedPersons * 4) / 1024),
});

export interface EventStoreSettings {
  // Persons the person step keeps in memory between transactions (src/persons/person-cache.ts).
  cachedPersons: number;
  // The step run on each batch before it is stored (./pre-store.ts), or none.
  preStore: PreStoreDeclaration | null;
}
