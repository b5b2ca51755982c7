// The insights module's start: where queries run (this process's aggregation worker, or the
// replicas behind the NATS engine), the statuses of background calculations (in the
// cluster's KV bucket: with NATS a poll or a cancel may reach any node), and the API.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { overNats } from '../cluster/index.js';
import type { LogTables } from '../log/tables.js';
import type { InsightsTables } from './tables.js';
import type { ActionsTables } from '../actions/index.js';
import type { FlagsTables } from '../flags/index.js';
import type { PersonsTables } from '../persons/index.js';
import type { DefinitionsTables } from '../definitions/index.js';
import { openStatuses } from './api/kv-statuses.js';
import { createInsightsApi, type InsightsApi } from './api/wiring.js';
import type { QueryService } from './api/query-service.js';

// Actions are read for the series that name them, cohorts for the filters that name them,
// persons for the members of a cohort.
export type InsightsTablesUsed = InsightsTables & LogTables & ActionsTables & FlagsTables & PersonsTables & DefinitionsTables;

export interface InsightsProvides {
  service: QueryService;
  linkDashboards: InsightsApi['linkDashboards'];
  present: InsightsApi['present'];
}

export async function startInsights(ctx: NodeContext<InsightsTablesUsed>, use: Use): Promise<Started<InsightsProvides>> {
  const { config, cluster, log } = ctx;
  const { auth, tenancy } = use(accessModule);
  const engine = config.insights.mode === 'nats' && overNats(cluster)
    // The NATS client loads only here: an embedded node never needs it (src/cluster/open.ts).
    ? await (await import('./nats-engine.js')).connectNatsEngine(cluster.jetstream, { timeoutMs: config.insights.queryTimeoutMs })
    : null;
  if (engine) ctx.metrics.watchInsightsReplicas(() => engine.replicas());
  const warnStatus = (err: Error) => log.warn('query status', { error: err.message });
  const statuses = await openStatuses(cluster, { onError: warnStatus }).catch((err: unknown) => { engine?.close(); throw err; });
  const insights = createInsightsApi({
    auth, store: ctx.store, writes: ctx.writes, tenancy, dataDir: config.dataDir, logId: ctx.eventLog.id, queryTimeoutMs: config.insights.queryTimeoutMs,
    engine: engine ?? undefined, statuses, onStatusError: warnStatus,
    cohortIntervalMs: config.insights.cohortIntervalMs, onCohortError: (err) => log.warn('cohort calculation', { error: err.message }),
  });
  return {
    provides: { service: insights.service, linkDashboards: insights.linkDashboards, present: insights.present },
    routes: insights.routes, close: () => insights.close(),
  };
}
