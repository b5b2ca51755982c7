// Public face of dashboards: the records and how to read them (dashboard exports and
// subscriptions render a dashboard's tiles), and a dashboard's filters over an insight's query.
export { dashboardById, dashboardTiles, layoutOrder, type DashboardRecord, type TileRecord, type TextRecord } from './records.js';
export { applyDashboard, effectiveFilters } from './filters.js';
export type { DashboardsTables } from './tables.js';
export { shownTiles, tileQuery, type ShownTile } from './shown.js';
