// The flags module: /decide and /flags (evaluated in a worker pool, with GeoIP), the flag and
// cohort management API, the local-evaluation feed and posthog-js's remote config.
import { nodeModule } from '../modules/index.js';
import type { FlagsTablesUsed } from './start.js';

export const flagsModule = nodeModule<undefined, FlagsTablesUsed>({
  name: 'flags',
  writes: async () => (await import('./definitions/commands.js')).flagCommands,
  start: async (ctx, use) => (await import('./start.js')).startFlags(ctx, use),
});
