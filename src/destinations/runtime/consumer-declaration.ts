// The destinations consumer (./consumer.ts) as the service registers it: its code, the Hog
// runtime and the deliveries, loads only in its own thread.
import { declareConsumer } from '../../log/consumers/index.js';
import { EVENT_STORE_CONSUMER } from '../../events/index.js';
import { DESTINATIONS_CONSUMER } from './queue.js';

export const destinationsConsumerDeclaration = declareConsumer<DestinationsSettings>({
  module: new URL('./consumer.js', import.meta.url).href,
  name: DESTINATIONS_CONSUMER,
  startsAt: 'end',
  follows: EVENT_STORE_CONSUMER,
});

export interface DestinationsSettings {
  dataDir: string;
  siteUrl: string;
  // HEDGEROW_HOG_FETCH_ALLOW as given.
  fetchAllow: string;
  hogWorkers: number;
  watcherLockMs: number;
}
