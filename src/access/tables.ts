// Access's table: organizations, projects, users, personal keys and explicit members
// (./tenancy/types.ts, ./members/store.ts say what each record holds).
import { table, type Tables } from '../store/index.js';

export const accessTables = {
  // Small records keyed by [kind, id].
  tenancy: table<unknown, (string | number)[]>('tenancy'),
};

export type AccessTables = Tables<typeof accessTables>;
