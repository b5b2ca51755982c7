// The insights API's `dashboards` (src/insights/api/links.ts), answered from the tiles: the
// live dashboards an insight has a live tile on; setting the list adds tiles (undeleting a
// removed one) and removes the others; deleting an insight deletes its tiles.
import type { ProjectContext } from '../access/index.js';
import { errors } from '../errors.js';
import type { InsightLinks } from '../insights/index.js';
import type { StateWrites } from '../state/index.js';
import { saveTilesCommand, type TileWrite } from './commands.js';
import { dashboardById, projectTiles } from './records.js';
import type { DashboardsTables } from './tables.js';
import { canEdit } from './write.js';

export function insightLinks(store: DashboardsTables, writes: StateWrites): InsightLinks {
  const live = (projectId: number, id: number) => {
    const d = dashboardById(store, projectId, id);
    return d && !d.deleted ? d : undefined;
  };
  return {
    of(projectId, insightId) {
      const tiles = projectTiles(store, projectId).filter((t) => t.insight_id === insightId);
      return {
        dashboards: [...new Set(tiles.filter((t) => !t.deleted && live(projectId, t.dashboard_id)).map((t) => t.dashboard_id))],
        dashboard_tiles: tiles.map((t) => ({ id: t.id, dashboard_id: t.dashboard_id, deleted: t.deleted })),
      };
    },
    check(ctx: ProjectContext, ids: number[], insightId: number | null) {
      for (const id of ids) {
        const d = dashboardById(store, ctx.project.id, id);
        if (!d) throw errors.validation('Dashboard not found', 'dashboards');
        if (!d.deleted && !canEdit(d, ctx)) throw errors.permissionDenied(`You don't have permission to add insights to dashboard: ${id}`);
      }
      if (insightId === null) return;
      // The dashboards the list takes the insight off, checked before the insight is saved.
      for (const t of projectTiles(store, ctx.project.id)) {
        if (t.insight_id !== insightId || t.deleted || ids.includes(t.dashboard_id)) continue;
        const d = live(ctx.project.id, t.dashboard_id);
        if (d && !canEdit(d, ctx)) throw errors.permissionDenied(`You don't have permission to remove insights from dashboard: ${d.id}`);
      }
    },
    async written(ctx, insight, ids) {
      const tiles = projectTiles(store, ctx.project.id).filter((t) => t.insight_id === insight.id);
      const changes: TileWrite[] = [];
      if (insight.deleted) {
        for (const t of tiles) if (!t.deleted) changes.push({ ...t, deleted: true });
      } else if (ids) {
        const wanted = new Set(ids.filter((id) => live(ctx.project.id, id)));
        for (const t of tiles) {
          const d = live(ctx.project.id, t.dashboard_id);
          if (!t.deleted && d && !wanted.has(t.dashboard_id)) changes.push({ ...t, deleted: true });
        }
        for (const id of wanted) {
          const t = tiles.find((x) => x.dashboard_id === id);
          if (t?.deleted) changes.push({ ...t, deleted: false });
          else if (!t) {
            changes.push({ project_id: ctx.project.id, dashboard_id: id, insight_id: insight.id, text: null, layouts: {}, color: null, filters_overrides: {}, deleted: false });
          }
        }
      }
      if (changes.length > 0) await writes.submit(saveTilesCommand, changes);
    },
  };
}
