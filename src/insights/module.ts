// The insights module: the query API over the columnar store (DuckDB), with its cache and
// background calculations. The columnar store is loaded by a log consumer: embedded, in this
// process's aggregation worker; with HEDGEROW_INSIGHTS=nats, in `hedgerow aggregate`
// replicas (docs/decisions/0030), which answer queries over NATS.
import { hostname } from 'node:os';
import { nodeModule } from '../modules/index.js';
import type { Config } from '../settings.js';
import type { InsightsProvides, InsightsTablesUsed } from './start.js';

// A replica's name: its host and data dir (it answers queries under it).
export const replicaName = (config: Readonly<Config>): string => `${hostname()}:${config.dataDir}`;

export const insightsModule = nodeModule<InsightsProvides, InsightsTablesUsed>({
  name: 'insights',
  writes: async () => (await import('./api/commands.js')).insightCommands,
  consumers: async (config, role) => {
    if (role === 'serve' && config.insights.mode !== 'embedded') return [];
    const [{ registered }, { insightsConsumerDeclaration }] = await Promise.all([import('../log/consumers/index.js'), import('./consumer-declaration.js')]);
    return [registered(insightsConsumerDeclaration, {
      dataDir: config.dataDir,
      threads: config.insights.threads || undefined,
      memoryLimit: config.insights.memoryLimit || undefined,
      warmHogQL: config.insights.hogqlParser === 'warm',
      lingerMs: config.insights.lingerMs,
      replica: role === 'aggregate' ? replicaName(config) : undefined,
    })];
  },
  start: async (ctx, use) => (await import('./start.js')).startInsights(ctx, use),
});
