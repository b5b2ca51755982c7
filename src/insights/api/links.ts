// The dashboards an insight is on: owned by the dashboards domain, which sits above this
// one and links itself in at start (InsightsProvides.linkDashboards). Until it does (a node
// without it, a test of insights alone), an insight is on no dashboard and a body naming one
// is refused.
import type { ProjectContext } from '../../access/index.js';
import { errors } from '../../errors.js';
import type { InsightRecord } from './insight-store.js';

export interface DashboardTileRef {
  id: number;
  dashboard_id: number;
  deleted: boolean;
}

export interface InsightLinks {
  // PostHog's `dashboards` (ids of the live dashboards it is on) and `dashboard_tiles`.
  of(projectId: number, insightId: number): { dashboards: number[]; dashboard_tiles: DashboardTileRef[] };
  // Refuses a body's `dashboards` before anything is written: unknown ids, no right to add
  // the insight to one, or (for a saved insight) to take it off one the list leaves out.
  check(ctx: ProjectContext, ids: number[], insightId: number | null): void;
  // After the insight was written: its tiles follow `ids` when given (added, undeleted,
  // removed), and are deleted with it when it was deleted.
  written(ctx: ProjectContext, insight: InsightRecord, ids: number[] | undefined): Promise<void>;
}

const NO_LINKS: InsightLinks = {
  of: () => ({ dashboards: [], dashboard_tiles: [] }),
  check(_ctx, ids) {
    if (ids.length > 0) throw errors.validation('Dashboard not found', 'dashboards');
  },
  written: async () => undefined,
};

export interface LinkSlot {
  links: InsightLinks;
}

export const linkSlot = (): LinkSlot => ({ links: NO_LINKS });
