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
  // Below the other consumers too: with every thread on one busy core, a destinations
  // thread at their nice 10 took ~10% of capture's requests/s (bench/capture-destinations);
  // at 15 (weight 36 to capture's 1024) a backlog of deliveries waits in the log instead.
  nice: 15,
});

export interface DestinationsSettings {
  dataDir: string;
  siteUrl: string;
  // HEDGEROW_HOG_FETCH_ALLOW as given.
  fetchAllow: string;
  hogWorkers: number;
  watcherLockMs: number;
}
