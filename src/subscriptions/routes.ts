// Subscriptions under /api/projects/:project_id/subscriptions/ and /api/environments/ (scope
// subscription): list (deleted hidden unless `deleted=` says; `insight`, `dashboard`
// filters), create, read, PATCH (delete is `deleted: true`), DELETE 405. The next delivery
// date is computed in the project's time zone whenever the schedule changes.
import { resourceRoutes, type ManagementAuth, type ProjectContext, type TenancyStore } from '../access/index.js';
import { dashboardById, shownTiles, type DashboardsTables } from '../dashboards/index.js';
import type { Route } from '../http/types.js';
import { insightById, type InsightsTables } from '../insights/index.js';
import type { StateWrites } from '../state/index.js';
import { insertSubscriptionCommand, saveSubscriptionCommand } from './commands.js';
import { presentSubscription } from './present.js';
import { projectSubscriptions, subscriptionById, type SubscriptionRecord } from './records.js';
import { nextDelivery } from './schedule.js';
import type { SubscriptionsTables } from './tables.js';
import { parseSubscription, type Targets } from './validate.js';

export interface SubscriptionRoutesDeps {
  auth: ManagementAuth;
  store: SubscriptionsTables & InsightsTables & DashboardsTables;
  writes: StateWrites;
  tenancy: TenancyStore;
  now: () => Date;
}

const RULE_FIELDS = ['frequency', 'interval', 'count', 'byweekday', 'bysetpos', 'start_date', 'until_date'] as const;

export function subscriptionRoutes({ auth, store, writes, tenancy, now }: SubscriptionRoutesDeps): Route[] {
  const targets = (projectId: number): Targets => ({
    insight: (id) => insightById(store, projectId, id),
    dashboard(id) {
      const d = dashboardById(store, projectId, id);
      return d && { deleted: d.deleted, insights: shownTiles(store, d).flatMap((t) => (t.insight ? [t.insight.id] : [])) };
    },
  });
  const resource = (s: SubscriptionRecord) => {
    const insight = s.insight === null ? undefined : insightById(store, s.project_id, s.insight);
    const dashboard = s.dashboard === null ? undefined : dashboardById(store, s.project_id, s.dashboard);
    return {
      insight_short_id: insight?.short_id ?? null,
      resource_name: insight ? insight.name || insight.derived_name || null : dashboard?.name ?? null,
    };
  };
  return resourceRoutes<SubscriptionRecord>(auth, {
    path: 'subscriptions', scope: 'subscription',
    list(req, { project }) {
      const deleted = req.query.get('deleted');
      const insight = req.query.get('insight');
      const dashboard = req.query.get('dashboard');
      return projectSubscriptions(store, project.id)
        .filter((s) => (deleted === null ? !s.deleted : s.deleted === (deleted === 'true' || deleted === '1')))
        .filter((s) => insight === null || String(s.insight) === insight)
        .filter((s) => dashboard === null || String(s.dashboard) === dashboard)
        .sort((a, b) => a.id - b.id);
    },
    find: (projectId, id) => subscriptionById(store, projectId, id),
    async create(body, ctx: ProjectContext) {
      const fields = parseSubscription(body, null, targets(ctx.project.id));
      const at = now();
      return writes.submit(insertSubscriptionCommand, {
        ...fields, project_id: ctx.project.id, created_at: at.toISOString(), created_by: ctx.user.id,
        next_delivery_date: nextDelivery(fields, at.getTime(), ctx.project.timezone), run_requested_at: null,
        delivery: { attempts: 0, retry_at: null, last_error: null, last_delivered_at: null },
      });
    },
    async update(current, body, ctx) {
      const fields = parseSubscription(body, current, targets(ctx.project.id));
      const ruleChanged = RULE_FIELDS.some((k) => JSON.stringify(fields[k]) !== JSON.stringify(current[k]));
      const next_delivery_date = ruleChanged ? nextDelivery(fields, now().getTime(), ctx.project.timezone) : current.next_delivery_date;
      const { delivery: _d, run_requested_at: _r, ...rest } = current;
      return (await writes.submit(saveSubscriptionCommand, { ...rest, ...fields, next_delivery_date })) ?? current;
    },
    presenter: () => (s) => presentSubscription(s, tenancy, resource(s)),
  });
}
