// The aggregation worker (./consumer.ts) as the service registers it: its code, DuckDB and
// the loader, loads only in its own thread.
import { declareConsumer } from '../log/consumers/index.js';
import { EVENT_STORE_CONSUMER } from '../events/index.js';
import { INSIGHTS_CONSUMER } from './protocol.js';

export const insightsConsumerDeclaration = declareConsumer<InsightsSettings>({
  module: new URL('./consumer.js', import.meta.url).href,
  name: INSIGHTS_CONSUMER,
  startsAt: 'beginning',
  follows: EVENT_STORE_CONSUMER,
  // A batch (8 MiB of log, staged from its rows' bytes) and the persons last loaded
  // (LoadedPersons, at most MEMO_BYTES of fingerprints), with room to spare.
  heapMb: () => 768,
  // Each load is a DuckDB transaction of several statements (tens of ms whatever its size):
  // a trickle of small loads cost more than the events in them (bench/RESULTS.md, "insights
  // linger").
  lingerMs: (settings) => settings.lingerMs ?? 0,
});

export interface InsightsSettings {
  /** The data dir: the columnar store is <dataDir>/insights.duckdb. */
  dataDir: string;
  threads?: number;
  memoryLimit?: string;
  /** Start the HogQL parser with the worker, rather than at the first HogQL (HEDGEROW_HOGQL_PARSER). */
  warmHogQL?: boolean;
  /** After a load that kept up with the log, how long to let the next batch gather (HEDGEROW_INSIGHTS_LINGER_MS). */
  lingerMs?: number;
  /**
   * A `hedgerow aggregate` replica of this name: queries come over NATS (./nats-query-server.ts,
   * on the thread's cluster connection) rather than from this process's service (./query-server.ts).
   */
  replica?: string;
}
