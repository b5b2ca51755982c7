// The exports module: exported assets of insights and queries (CSV, XLSX, PNG, PDF, JSON),
// rendered in their own worker pool, claimed across a cluster, swept when they expire.
import { nodeModule } from '../modules/index.js';
import type { ExportsProvides, ExportsTablesUsed } from './start.js';

export const exportsModule = nodeModule<ExportsProvides, ExportsTablesUsed>({
  name: 'exports',
  writes: async () => (await import('./assets/commands.js')).exportCommands,
  start: async (ctx, use) => (await import('./start.js')).startExports(ctx, use),
});
