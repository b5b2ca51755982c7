// Dashboard writes as commands (src/state/, docs/decisions/0015). Ids (dashboards, tiles,
// texts: a text takes its tile's id) are global sequences the applier assigns; times and
// users are chosen by the submitter and carried in the payload.
import { commandsOn } from '../state/index.js';
import type { DashboardsTables } from './tables.js';
import { SEQ_KEY, type DashboardRecord, type TextRecord, type TileRecord } from './records.js';

const defineCommand = commandsOn<DashboardsTables>();

// A tile to write: with an id, replaces that tile; without, a new one (its text, if any,
// takes the new id).
export type TileWrite = Omit<TileRecord, 'id' | 'text'> & { id?: number; text: (Omit<TextRecord, 'id'> & { id?: number }) | null };

function putTiles(store: DashboardsTables, tiles: TileWrite[]): TileRecord[] {
  return tiles.map((t) => {
    let id = t.id;
    if (id === undefined) {
      id = ((store.dashboardTiles.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
      store.dashboardTiles.put(SEQ_KEY, id);
    }
    const record: TileRecord = { ...t, id, text: t.text ? { ...t.text, id: t.text.id ?? id } : null };
    store.dashboardTiles.put([t.project_id, id], record);
    return record;
  });
}

export const insertDashboardCommand = defineCommand('dashboards.insert', (store, p: { fields: Omit<DashboardRecord, 'id'>; tiles: Omit<TileWrite, 'dashboard_id'>[] }) => {
  const id = ((store.dashboards.get(SEQ_KEY) as number | undefined) ?? 0) + 1;
  const dashboard: DashboardRecord = { ...p.fields, id };
  store.dashboards.put(SEQ_KEY, id);
  store.dashboards.put([dashboard.project_id, id], dashboard);
  const tiles = putTiles(store, p.tiles.map((t) => ({ ...t, dashboard_id: id })));
  return { dashboard, tiles };
});

export const saveDashboardCommand = defineCommand('dashboards.save', (store, p: { dashboard: DashboardRecord; tiles: TileWrite[] }) => {
  store.dashboards.put([p.dashboard.project_id, p.dashboard.id], p.dashboard);
  return { dashboard: p.dashboard, tiles: putTiles(store, p.tiles) };
});

export const saveTilesCommand = defineCommand('dashboards.tiles', (store, tiles: TileWrite[]): TileRecord[] => putTiles(store, tiles));

export const dashboardCommands = [insertDashboardCommand, saveDashboardCommand, saveTilesCommand];
