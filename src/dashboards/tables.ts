// Dashboards' tables (./records.ts).
import { plainMaps, table, type Tables } from '../store/index.js';

export const dashboardsTables = {
  // [project_id, id] → dashboard, and [0, 0] → the last id handed out (ids are global, as PostHog's).
  dashboards: table<unknown, [number, number]>('dashboards', plainMaps),
  // [project_id, id] → a tile (an insight's or a text's place on a dashboard), and [0, 0] → the last tile id.
  dashboardTiles: table<unknown, [number, number]>('dashboard_tiles', plainMaps),
};

export type DashboardsTables = Tables<typeof dashboardsTables>;
