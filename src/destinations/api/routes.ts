// The hog functions API under /api/projects/:project_id/ and /api/environments/:project_id/
// (scope hog_function; reference/hog.md §1). Creates and updates are validated and compiled
// in the API's compile pool, never on this thread, then written through the management write
// path; test runs run as ./invoke.ts says. Each project has a few compiles and test runs in
// flight at most (429 past them), so one project's cannot queue up ahead of everyone's.
// DELETE answers 405 with no body: deleting is PATCH {"deleted": true}.
import { randomUUID } from 'node:crypto';
import { ApiError, errors } from '../../errors.js';
import type { ManagementAuth, Project, ProjectContext, TenancyStore } from '../../access/index.js';
import { liveActionSteps, type ActionsTables } from '../../actions/index.js';
import { cohortById, type FlagsTables } from '../../flags/index.js';
import { COHORT_FILTER_TYPES } from '../../matching/index.js';
import type { CohortDefinition, PropertyFilter } from '../../hog/index.js';
import { jsonObject } from '../../http/body.js';
import { paginate } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { HttpRequest, Route } from '../../http/types.js';
import { TaskDeadlineError } from '../../pools/index.js';
import type { StateWrites } from '../../state/index.js';
import type { DestinationsStore } from '../runtime/env.js';
import type { DestinationsTables } from '../tables.js';
import { insertHogFunction, rearrangeHogFunctions, saveHogFunction } from '../commands.js';
import { offOrOn } from '../off-periods.js';
import { parseAddressPolicy } from '../../net/address-policy.js';
import { FETCH_TIMEOUT_MS, httpFetch, MAX_RESPONSE_BYTES } from '../fetch/http-fetch.js';
import { failedOf } from '../runtime/failed-deliveries.js';
import { resendFailed } from '../runtime/resend.js';
import { failedDeliveryResponse, secretRedactor } from './failed-deliveries.js';
import { projectUrl } from '../runtime/globals.js';
import { statusOf, WATCHER_DEFAULTS, type WatcherSettings } from '../runtime/watcher.js';
import { hogFunctionById, projectHogFunctions } from '../store.js';
import type { ValidateResult, ValidateTask } from '../tasks.js';
import type { StoredHogFunction } from '../types.js';
import { invokeConfiguration } from './invoke.js';
import { functionList } from './list.js';
import { functionLogs, logsQuery } from './logs-query.js';
import { metricsQuery, metricsSeries, metricsTotals } from './metrics-query.js';
import { fullResponse, minimalResponse, type Presentation } from './serialize.js';
import type { ValidationContext } from './validate.js';
import { COMPILE_DEADLINE_MS, type HogApiPools } from './pools.js';
import { projectSlots } from './project-slots.js';

export interface HogFunctionRoutesDeps {
  auth: ManagementAuth;
  store: DestinationsTables & ActionsTables & FlagsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  ds: DestinationsStore;
  pools: Pick<HogApiPools, 'compile' | 'exec'>;
  siteUrl: string;
  fetchAllow: string;
  watcherLockMs: number;
}

const SCOPE = 'hog_function';
const PATH = 'hog_functions';
// Per project: one compile in flight (of the compile pool's two threads) and eight waiting
// behind it; two test runs in flight.
const COMPILES_PER_PROJECT = 1;
const COMPILES_WAITING_PER_PROJECT = 8;
const TEST_RUNS_PER_PROJECT = 2;

// A compile stopped at its deadline is the source's fault, told as a 400.
async function compiling<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof TaskDeadlineError) throw errors.compileTimedOut(COMPILE_DEADLINE_MS / 1000, null);
    throw err;
  }
}

// The cohorts a project's test account filters name (PostHog inlines them into filters).

function namedCohorts(store: FlagsTables, project: Project): Record<number, CohortDefinition> {
  const out: Record<number, CohortDefinition> = {};
  for (const f of (project.test_account_filters ?? []) as PropertyFilter[]) {
    const id = Number(f.value);
    if (!COHORT_FILTER_TYPES.has(String(f.type)) || !Number.isInteger(id)) continue;
    const c = cohortById(store, project.id, id);
    if (c && !c.deleted) out[id] = { name: c.name ?? '', is_static: c.is_static, filters: c.filters };
  }
  return out;
}

// Whether a function's filters (or a mapping's) name the action.
function namesAction(fn: StoredHogFunction, actionId: number): boolean {
  const filters = [fn.filters, ...(fn.mappings ?? []).map((m) => m.filters)];
  return filters.some((f) => Array.isArray(f?.actions) && f.actions.some((a) => Number((a as { id?: unknown }).id) === actionId));
}

export interface HogFunctionApi {
  routes: Route[];
  // Compiles again the filters of the project's functions that name the action, after its
  // steps changed or it was deleted (PostHog does the same): their bytecode follows it.
  actionChanged(project: Project, actionId: number): Promise<void>;
}

export function hogFunctionRoutes(deps: HogFunctionRoutesDeps): HogFunctionApi {
  const { auth, store, writes, tenancy, ds, pools } = deps;
  const compiles = projectSlots(COMPILES_PER_PROJECT, COMPILES_WAITING_PER_PROJECT);
  const testRuns = projectSlots(TEST_RUNS_PER_PROJECT);

  // Compiles a save's or a test run's configuration in the project's turn.
  async function compile(projectId: number, task: ValidateTask): Promise<ValidateResult> {
    const entered = compiles.enter(projectId);
    if (entered === null) throw errors.throttled(1);
    const release = await entered;
    try {
      return await pools.compile.run('validate', task);
    } finally {
      release();
    }
  }
  const watcher: WatcherSettings = { ...WATCHER_DEFAULTS, stateLockMs: deps.watcherLockMs };
  const presentation: Presentation = {
    user: (id) => tenancy.user(id),
    status: (fn) => statusOf(ds.watcher.get(fn.id), fn, watcher, Date.now()),
  };
  const validationContext = ({ project }: { project: Project }): ValidationContext => ({
    projectId: project.id, timeZone: project.timezone, now: Date.now(), siteUrl: deps.siteUrl,
    actions: liveActionSteps(store, project.id), testAccountFilters: (project.test_account_filters ?? []) as PropertyFilter[],
    cohorts: namedCohorts(store, project),
  });

  // A function of the project; deleted ones only when `alsoDeleted` (the undelete PATCH).
  function functionOf(req: HttpRequest, ctx: ProjectContext, alsoDeleted = false): StoredHogFunction {
    const fn = hogFunctionById(store, ctx.project.id, req.params.id);
    if (!fn || (fn.deleted && !alsoDeleted)) throw errors.notFound();
    return fn;
  }

  function maxExecutionOrder(projectId: number, type: string, except: string | null): number {
    let max = 0;
    for (const f of projectHogFunctions(store, projectId)) {
      if (f.id !== except && !f.deleted && f.type === type && f.execution_order !== null) max = Math.max(max, f.execution_order);
    }
    return max;
  }

  function enabledOfType(projectId: number, type: string, except: string | null): number {
    return projectHogFunctions(store, projectId).filter((f) => f.id !== except && !f.deleted && f.enabled && f.type === type).length;
  }

  async function validated(body: Record<string, unknown>, existing: StoredHogFunction | null, ctx: { project: Project }) {
    const type = typeof body.type === 'string' && body.type ? body.type : existing?.type ?? 'destination';
    const out = await compiling(compile(ctx.project.id, {
      body, existing, ctx: validationContext(ctx), maxExecutionOrder: maxExecutionOrder(ctx.project.id, type, existing?.id ?? null),
      enabledOfType: enabledOfType(ctx.project.id, type, existing?.id ?? null),
    }));
    if (!out.ok) throw new ApiError(out.status, out.error.type, out.error.code, out.error.detail, out.error.attr);
    return out.fields;
  }

  async function actionChanged(project: Project, actionId: number): Promise<void> {
    for (const fn of projectHogFunctions(store, project.id)) {
      if (fn.deleted || !namesAction(fn, actionId)) continue;
      const again = await compiling(pools.compile.run('refilter', { fn, ctx: validationContext({ project }) }));
      await saveHogFunction(writes, { ...fn, ...again, updated_at: new Date().toISOString() });
    }
  }

  const routes: Route[] = [
    ...auth.projectRoutes({
      methods: ['GET'], path: PATH, scope: SCOPE,
      handler(req, { project }) {
        const page = paginate(req, functionList(req, projectHogFunctions(store, project.id)));
        const show = req.query.get('full') === 'true' ? fullResponse : minimalResponse;
        return json(200, { ...page, results: page.results.map((fn) => show(fn, presentation)) });
      },
    }),
    ...auth.projectRoutes({
      methods: ['POST'], path: PATH, scope: SCOPE,
      async handler(req, ctx) {
        const fields = await validated(jsonObject(req), null, ctx);
        const now = new Date().toISOString();
        const fn = await insertHogFunction(writes, {
          ...fields, id: randomUUID(), project_id: ctx.project.id, created_at: now, created_by: ctx.user.id, updated_at: now, watcher_epoch: 0,
        });
        return json(201, fullResponse(fn, presentation));
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/icons`, scope: SCOPE,
      // PostHog searches logo.dev, and answers [] without its token; hedgerow has none.
      handler: () => json(200, []),
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/icon`, scope: SCOPE,
      handler(req) {
        if (!req.query.get('id')) throw errors.validation('id is required', 'id');
        // PostHog proxies the logo from logo.dev, and answers 404 without its token.
        throw errors.notFound();
      },
    }),
    ...auth.projectRoutes({
      methods: ['PATCH'], path: `${PATH}/rearrange`, scope: SCOPE,
      async handler(req, { project }) {
        const body = jsonObject(req);
        const orders = typeof body.orders === 'object' && body.orders !== null && !Array.isArray(body.orders) ? body.orders as Record<string, unknown> : {};
        const entries = Object.entries(orders);
        if (entries.length === 0) throw errors.validation('No orders provided');
        const types = new Set<string>();
        const pairs: [string, number][] = [];
        for (const [id, order] of entries) {
          const fn = hogFunctionById(store, project.id, id);
          if (!fn || fn.deleted) throw errors.validation(`HogFunction with id ${id} does not exist`);
          if (typeof order !== 'number' || !Number.isInteger(order)) throw errors.validation('A valid integer is required.', id, 'invalid');
          types.add(fn.type);
          pairs.push([id, order]);
        }
        if (types.size > 1) throw errors.validation('Cannot rearrange functions of different types in one request');
        await rearrangeHogFunctions(writes, { project_id: project.id, orders: pairs, updated_at: new Date().toISOString() });
        const [type] = types;
        const ordered = functionList(null, projectHogFunctions(store, project.id)).filter((f) => f.type === type);
        return json(200, ordered.map((fn) => fullResponse(fn, presentation)));
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/:id`, scope: SCOPE,
      handler: (req, ctx) => json(200, fullResponse(functionOf(req, ctx), presentation)),
    }),
    ...auth.projectRoutes({
      methods: ['PATCH'], path: `${PATH}/:id`, scope: SCOPE,
      async handler(req, ctx) {
        const body = jsonObject(req);
        const existing = functionOf(req, ctx, body.deleted === false);
        const fields = await validated(body, existing, ctx);
        const now = new Date().toISOString();
        const fn = await saveHogFunction(writes, {
          ...existing, ...fields, updated_at: now,
          // An update that leaves the function enabled takes it back from the watcher's "disabled".
          watcher_epoch: existing.watcher_epoch + (fields.enabled ? 1 : 0),
          ...offOrOn(existing, fields, now),
        });
        return json(200, fullResponse(fn, presentation));
      },
    }),
    ...auth.projectRoutes({
      methods: ['DELETE'], path: `${PATH}/:id`, scope: SCOPE,
      handler() { throw errors.softDeleteOnly(); },
    }),
    ...auth.projectRoutes({
      methods: ['POST'], path: `${PATH}/:id/invocations`, scope: SCOPE,
      async handler(req, ctx) {
        const existing = req.params.id === 'new' ? null : functionOf(req, ctx);
        const { project } = ctx;
        const body = jsonObject(req);
        const entered = testRuns.enter(project.id);
        if (entered === null) throw errors.throttled(1);
        const release = await entered;
        try {
          const out = await invokeConfiguration({
            body, existing, ctx: validationContext(ctx), fetchAllow: deps.fetchAllow,
            project: { id: project.id, name: project.name, url: projectUrl(deps.siteUrl, project.id) },
          }, { exec: pools.exec, compile: (task) => compile(project.id, task) });
          return json(out.status, out.body);
        } finally {
          release();
        }
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/:id/logs`, scope: SCOPE,
      handler(req, ctx) {
        const fn = functionOf(req, ctx);
        const rows = functionLogs(ds, fn.id, logsQuery(req));
        return json(200, paginate(req, rows));
      },
    }),
    // Beyond PostHog (its #30391): deliveries that failed for good, newest first, and
    // sending them again (all, oldest first, up to 100 a call; or those named in `ids`).
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/:id/failed_deliveries`, scope: SCOPE,
      handler(req, ctx) {
        const fn = functionOf(req, ctx);
        const redact = secretRedactor(fn);
        return json(200, paginate(req, failedOf(ds, fn.id).map((f) => failedDeliveryResponse(f, redact))));
      },
    }),
    ...auth.projectRoutes({
      methods: ['POST'], path: `${PATH}/:id/failed_deliveries/resend`, scope: SCOPE,
      async handler(req, ctx) {
        const fn = functionOf(req, ctx);
        const body = jsonObject(req);
        let ids: string[] | null = null;
        if (body.ids !== undefined) {
          if (!Array.isArray(body.ids) || !body.ids.every((i) => typeof i === 'string')) throw errors.validation('Expected a list of ids.', 'ids', 'not_a_list');
          ids = body.ids as string[];
        }
        const policy = parseAddressPolicy(deps.fetchAllow);
        const round = await resendFailed(ds, fn, ids,
          (request) => httpFetch(request, { policy, timeoutMs: FETCH_TIMEOUT_MS, maxResponseBytes: MAX_RESPONSE_BYTES }), Date.now);
        return json(200, round);
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/:id/metrics`, scope: SCOPE,
      handler: (req, ctx) => json(200, metricsSeries(ds, functionOf(req, ctx).id, metricsQuery(req, Date.now(), false))),
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/:id/metrics/totals`, scope: SCOPE,
      handler: (req, ctx) => json(200, metricsTotals(ds, functionOf(req, ctx).id, metricsQuery(req, Date.now(), true))),
    }),
  ];
  return { routes, actionChanged };
}
