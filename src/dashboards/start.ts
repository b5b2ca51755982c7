// The dashboards module's start: the API, and the insights API's `dashboards` linked to the tiles.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import type { InsightsTables } from '../insights/index.js';
import { insightsModule } from '../insights/module.js';
import type { DashboardsTables } from './tables.js';
import { insightLinks } from './links.js';
import { dashboardRoutes } from './routes.js';

export type DashboardsTablesUsed = DashboardsTables & InsightsTables;

export async function startDashboards(ctx: NodeContext<DashboardsTablesUsed>, use: Use): Promise<Started> {
  const { auth, tenancy } = use(accessModule);
  const insights = use(insightsModule);
  insights.linkDashboards(insightLinks(ctx.store, ctx.writes));
  return {
    routes: dashboardRoutes({ auth, store: ctx.store, writes: ctx.writes, tenancy, present: insights.present, now: () => new Date() }),
    async close() {},
  };
}
