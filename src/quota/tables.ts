// The quota's table (./meter.ts reads and writes it).
import { table, type Tables } from '../store/index.js';

export const quotaTables = {
  // Organization quotas: ['limit', org_id] → limits, ['usage', org_id, resource, period] → count.
  quota: table<unknown, (string | number)[]>('quota'),
};

export type QuotaTables = Tables<typeof quotaTables>;
