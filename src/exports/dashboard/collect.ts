// A dashboard's data for its renderers: every insight tile's query run (a few at a time,
// through the insights engine as an insight export's is), a tile whose query fails keeping
// its error rather than failing the whole export.
import type { Project } from '../../access/index.js';
import type { QueryOutput } from '../assets/query-output.js';
import type { DashboardData, DashboardTileData, GridBox } from './types.js';

// A dashboard as the dashboards domain gives it: tiles in order, queries under its filters.
export interface DashboardSource {
  id: number;
  name: string;
  description: string;
  filters: Record<string, unknown>;
  tiles: {
    id: number;
    layout: GridBox | null;
    text: string | null;
    insight: { id: number; name: string; query: unknown } | null;
  }[];
}

// Tile queries run at once, at most (the dashboards API's bound).
const CONCURRENCY = 4;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function collectDashboard(
  source: DashboardSource, project: Project, run: (project: Project, query: unknown) => Promise<QueryOutput>, now: Date,
): Promise<{ data: DashboardData; rows: number }> {
  const tiles = new Array<DashboardTileData>(source.tiles.length);
  let rows = 0;
  let next = 0;
  const worker = async () => {
    while (next < source.tiles.length) {
      const i = next++;
      const t = source.tiles[i];
      const tile: DashboardTileData = { id: t.id, layout: t.layout, text: t.text, insight: null, error: null };
      if (t.insight) {
        const base = { id: t.insight.id, name: t.insight.name, query: t.insight.query, result: null as unknown, timezone: project.timezone };
        try {
          const out = await run(project, t.insight.query);
          tile.insight = { ...base, result: out.results, columns: out.columns ?? null, types: out.types ?? null };
          if (Array.isArray(out.results)) rows += out.results.length;
        } catch (err) {
          tile.insight = base;
          tile.error = messageOf(err);
        }
      }
      tiles[i] = tile;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, source.tiles.length) }, worker));
  return {
    data: { id: source.id, name: source.name, description: source.description, filters: source.filters, timezone: project.timezone, computedAt: now.toISOString(), tiles },
    rows,
  };
}
