// `hedgerow quota show | set`: an organization's feature flag request quota, on the data
// directory of a running server or a stopped one. The server sees a change within a second.
import { AppliedElsewhereError, type DataDirOpener } from '../state/index.js';
import { createTenancyStore, type AccessTables } from '../access/index.js';
import type { QuotaTables } from './tables.js';
import { createFlagMeter } from './meter.js';
import { quotaCommands } from './commands.js';
import { parseLimit } from './usage.js';

type Flags = Record<string, string | boolean | undefined>;
const text = (v: string | boolean | undefined) => (typeof v === 'string' ? v : undefined);

export async function quotaCommand(sub: string | undefined, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<AccessTables & QuotaTables> }): Promise<string> {
  if (sub !== 'show' && sub !== 'set') throw new Error('usage: hedgerow quota show|set [--organization ID] [--flags N|unlimited]');
  let limit: number | null | undefined;
  if (sub === 'set') {
    limit = parseLimit(text(flags.flags));
    if (limit === undefined) throw new Error('quota set needs --flags N (a whole number of requests per month) or --flags unlimited');
  }
  const opened = await config.open(config.dataDir, quotaCommands);
  try {
    const { store, writes } = opened;
    // Reads only: no tenancy write is registered here.
    const tenancy = createTenancyStore(store, writes);
    const meter = createFlagMeter(store, writes);
    const wanted = text(flags.organization);
    const org = wanted === undefined ? tenancy.firstOrganization() : tenancy.organization(wanted);
    if (!org) throw new Error(wanted === undefined ? 'no organization yet: run `hedgerow init` first' : `no organization with id ${wanted}`);
    if (limit !== undefined) {
      await meter.setQuota(org.id, limit).catch((err: unknown) => {
        // A `serve` on this data dir applied it first (cluster mode): it is set all the same.
        if (!(err instanceof AppliedElsewhereError)) throw err;
      });
    }
    const report = meter.report(org.id, Date.now());
    if (config.json) return JSON.stringify({ organization: org.id, feature_flag_requests: report });
    return `organization ${org.id}: feature flag requests ${report.usage} of ${report.limit ?? 'unlimited'} ` +
      `this month (${report.period_start.slice(0, 10)} to ${report.period_end.slice(0, 10)} UTC)${report.quota_limited ? ', quota-limited' : ''}`;
  } finally {
    await opened.close();
  }
}
