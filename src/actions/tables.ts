// Actions' table (./records.ts).
import { plainMaps, table, type Tables } from '../store/index.js';

export const actionsTables = {
  // [project_id, id] → action, and [0, 0] → the last id handed out (ids are global, as PostHog's).
  actions: table<unknown, [number, number]>('actions', plainMaps),
};

export type ActionsTables = Tables<typeof actionsTables>;
