// The insights API as the service mounts it: the client of the aggregation worker, the
// query service over the result cache and background calculations, and the routes.
import { randomUUID } from 'node:crypto';
import type { ManagementAuth, ProjectContext, TenancyStore } from '../../access/index.js';
import type { Route } from '../../http/types.js';
import { positionKey } from '../../log/consumers/index.js';
import type { StateWrites } from '../../state/index.js';
import type { LogTables } from '../../log/tables.js';
import type { InsightsTables } from '../tables.js';
import type { ActionsTables } from '../../actions/index.js';
import type { FlagsTables } from '../../flags/index.js';
import type { DefinitionsTables } from '../../definitions/index.js';
import { INSIGHTS_CONSUMER } from '../protocol.js';
import { connectEngine, type InsightsEngine } from '../engine.js';
import { pruneCache } from './cache.js';
import { startCohortCalculation } from '../cohorts/calculate.js';
import { memberRoutes } from '../cohorts/member-routes.js';
import type { PersonsTables } from '../../persons/index.js';
import { insightRoutes } from './insight-routes.js';
import { createQueryService, type QueryService } from './query-service.js';
import { queryRoutes } from './query-routes.js';
import type { Statuses } from './statuses.js';
import { insightBody } from './insight-routes.js';
import type { InsightRecord } from './insight-store.js';
import { linkSlot, type InsightLinks } from './links.js';
import type { RefreshMode } from './refresh.js';

export interface InsightsApiOptions {
  auth: ManagementAuth;
  store: InsightsTables & LogTables & ActionsTables & FlagsTables & PersonsTables & DefinitionsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  dataDir: string;
  logId: string;
  queryTimeoutMs: number;
  /** How old a dynamic cohort's count may grow (../cohorts/calculate.ts); absent: no schedule. */
  cohortIntervalMs?: number;
  onCohortError?(err: Error): void;
  /** Where queries run; default: the embedded aggregation worker of this data dir. */
  engine?: InsightsEngine;
  /** Where background calculations' statuses live (./kv-statuses.ts; closed with the API). */
  statuses: Statuses;
  onStatusError?(err: Error): void;
}

export interface InsightsApi {
  routes: Route[];
  service: QueryService;
  // The dashboards domain links itself in (./links.ts).
  linkDashboards(links: InsightLinks): void;
  // An insight as the API shows it, its query replaced (a dashboard's filters applied) and
  // run under `mode`; a query that fails is reported in `error` rather than thrown.
  present(ctx: ProjectContext, insight: InsightRecord, mode: RefreshMode, query: Record<string, unknown> | null): Promise<Record<string, unknown>>;
  /** Ends the engine, then the statuses (a calculation it interrupted records its error first). */
  close(): Promise<void>;
}

// Cached results older than this are dropped at start-up: the cache is not an archive (PostHog's
// expires too), and force_cache then answers a miss.
const CACHE_KEEP_MS = 7 * 86_400_000;

export function createInsightsApi(opts: InsightsApiOptions): InsightsApi {
  const key = positionKey(INSIGHTS_CONSUMER, opts.logId);
  const engine = opts.engine ?? connectEngine(opts.dataDir, opts.queryTimeoutMs, () => opts.store.positions.get(key) ?? 0);
  void pruneCache(opts.store, Date.now() - CACHE_KEEP_MS);
  const { statuses } = opts;
  const service = createQueryService({
    store: opts.store, engine, statuses, now: Date.now, onStatusError: opts.onStatusError,
    newId: () => randomUUID().replace(/-/g, ''),
  });
  const slot = linkSlot();
  const cohorts = opts.cohortIntervalMs === undefined ? null : startCohortCalculation({
    store: opts.store, writes: opts.writes, engine, now: Date.now, intervalMs: opts.cohortIntervalMs,
    tickMs: Math.min(1_000, opts.cohortIntervalMs), onError: opts.onCohortError,
  });
  return {
    routes: [
      ...queryRoutes({ auth: opts.auth, service }),
      ...memberRoutes({ auth: opts.auth, store: opts.store, engine, now: Date.now }),
      ...insightRoutes({ auth: opts.auth, slot, store: opts.store, writes: opts.writes, tenancy: opts.tenancy, service, now: () => new Date() }),
    ],
    service,
    linkDashboards(links) {
      slot.links = links;
    },
    async present(ctx, insight, mode, query) {
      let answer = null;
      let error: { type: string; message: string } | null = null;
      if (query) {
        try {
          answer = await service.answer(ctx.project, query, { mode, insightId: insight.id });
        } catch (err) {
          error = { type: err instanceof Error ? err.name : 'Error', message: err instanceof Error ? err.message : String(err) };
        }
      }
      const body = insightBody(insight, answer, ctx.project, opts.tenancy, slot.links, query);
      return error ? { ...body, error } : body;
    },
    async close() {
      // The engine's close ends a cohort calculation waiting on it.
      const cohortsClosed = cohorts?.close();
      engine.close();
      await cohortsClosed;
      // The interrupted calculations' outcomes are recorded in the turns after the engine's close.
      await new Promise((resolve) => setImmediate(resolve));
      await statuses.close();
    },
  };
}
