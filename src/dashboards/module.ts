// The dashboards module: PostHog's dashboards (insight and text tiles, filters and variables
// over every tile), and the dashboards an insight is on.
import { nodeModule } from '../modules/index.js';
import type { DashboardsTablesUsed } from './start.js';

export const dashboardsModule = nodeModule<undefined, DashboardsTablesUsed>({
  name: 'dashboards',
  writes: async () => (await import('./commands.js')).dashboardCommands,
  start: async (ctx, use) => (await import('./start.js')).startDashboards(ctx, use),
});
