// Exported assets (./assets/asset-store.ts). Their files live beside, under <data>/exports/.
import { plainMaps, table, type Tables } from '../store/index.js';

export const exportsTables = {
  // [project_id, id] → asset, and [0, 0] → the last id handed out (ids are global, as PostHog's).
  exports: table<unknown, [number, number]>('exports', plainMaps),
};

export type ExportsTables = Tables<typeof exportsTables>;
