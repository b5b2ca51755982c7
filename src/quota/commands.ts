// Quota writes as commands (src/state/, docs/decisions/0015), in the quota database:
// ['limit', org_id, resource] → limit, ['usage', org_id, resource, period] → count.
// Usage arrives as additions, so every node's counts add up whatever their order.
import { commandsOn } from '../state/index.js';
import type { QuotaTables } from './tables.js';

// The quota commands apply to the quota's table.
const defineCommand = commandsOn<QuotaTables>();

export const FLAG_REQUESTS = 'feature_flag_requests';

export const limitKey = (orgId: string) => ['limit', orgId, FLAG_REQUESTS];
export const usageKey = (orgId: string, period: string) => ['usage', orgId, FLAG_REQUESTS, period];

export const setFlagLimit = defineCommand('quota.set_flag_limit', (store, { organization_id, limit }: { organization_id: string; limit: number | null }): void => {
  store.quota.put(limitKey(organization_id), limit);
});

// [organization id, billing period, requests] each.
export const addFlagUsage = defineCommand('quota.add_flag_usage', (store, { counts }: { counts: [string, string, number][] }): void => {
  for (const [orgId, period, n] of counts) {
    const key = usageKey(orgId, period);
    store.quota.put(key, ((store.quota.get(key) as number | undefined) ?? 0) + n);
  }
});

export const quotaCommands = [setFlagLimit, addFlagUsage];
