// The subscriptions module's start: the API, and the scheduler over the cluster's claims,
// rendering through the exports module and sending to webhooks, Slack and SMTP.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { dashboardById, shownTiles, type DashboardsTables } from '../dashboards/index.js';
import { exportsModule } from '../exports/module.js';
import { insightById, type InsightsTables } from '../insights/index.js';
import { buildMessage, type RenderedItem } from './message.js';
import type { SubscriptionRecord } from './records.js';
import { summary } from './rrule.js';
import { subscriptionRoutes } from './routes.js';
import { createScheduler } from './scheduler.js';
import type { SubscriptionsTables } from './tables.js';
import { integrationRoutes } from './integrations.js';
import { createSender } from './send.js';
import { smtpServerOf } from './targets/smtp.js';
import { parseAddressPolicy } from '../net/address-policy.js';

export type SubscriptionsTablesUsed = SubscriptionsTables & InsightsTables & DashboardsTables;

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export async function startSubscriptions(ctx: NodeContext<SubscriptionsTablesUsed>, use: Use): Promise<Started> {
  const { config, store, log } = ctx;
  const settings = config.subscriptions;
  const { auth, tenancy } = use(accessModule);
  const { publishPng } = use(exportsModule);
  const smtp = smtpServerOf(settings);
  const leases = await ctx.cluster.leases('claims');
  const now = () => new Date();

  const insightName = (projectId: number, id: number) => {
    const i = insightById(store, projectId, id);
    return i ? i.name || i.derived_name || 'Insight' : 'Insight';
  };
  // The insights it sends: its own, or the dashboard's chosen ones (else every insight tile) in layout order.
  const insightsOf = (s: SubscriptionRecord): number[] => {
    if (s.insight !== null) return [s.insight];
    const d = s.dashboard === null ? undefined : dashboardById(store, s.project_id, s.dashboard);
    if (!d) return [];
    const ids = shownTiles(store, d).flatMap((t) => (t.insight ? [t.insight.id] : []));
    return s.dashboard_export_insights.length > 0 ? ids.filter((id) => s.dashboard_export_insights.includes(id)) : ids;
  };

  const scheduler = createScheduler({
    store, writes: ctx.writes, leases, log, now, settings,
    timezone: (id) => tenancy.project(id)?.timezone,
    live(s) {
      if (s.insight !== null) {
        const i = insightById(store, s.project_id, s.insight);
        return i !== undefined && !i.deleted;
      }
      const d = s.dashboard === null ? undefined : dashboardById(store, s.project_id, s.dashboard);
      return d !== undefined && !d.deleted;
    },
    async render(s) {
      const items: RenderedItem[] = [];
      // One at a time: the export pool is shared with the API's exports.
      for (const id of insightsOf(s)) {
        const name = insightName(s.project_id, id);
        try {
          const { bytes, url } = await publishPng({
            projectId: s.project_id, insightId: id, dashboardId: s.insight === null ? s.dashboard : null, createdBy: s.created_by ?? 0, subscriptionId: s.id,
          });
          items.push({ insight_id: id, name, png: bytes, url, error: null });
        } catch (err) {
          items.push({ insight_id: id, name, png: null, url: null, error: messageOf(err) });
        }
      }
      if (items.length > 0 && items.every((i) => i.png === null)) throw new Error(`No picture could be drawn: ${items[0].error}`);
      return items;
    },
    message(s, items, at) {
      const insight = s.insight === null ? undefined : insightById(store, s.project_id, s.insight);
      const dashboard = s.dashboard === null ? undefined : dashboardById(store, s.project_id, s.dashboard);
      const resource = insight
        ? { type: 'insight' as const, id: insight.id, name: insight.name || insight.derived_name || 'Insight', shortId: insight.short_id }
        : { type: 'dashboard' as const, id: dashboard?.id ?? 0, name: dashboard?.name || 'Untitled dashboard', shortId: null };
      return buildMessage({ siteUrl: config.siteUrl, subscription: { id: s.id, title: s.title, summary: summary(s) }, resource, items, at });
    },
    send: createSender({ smtp, from: settings.smtpFrom, timeoutMs: settings.sendTimeoutMs, policy: parseAddressPolicy(settings.allow) }),
  });
  scheduler.start();
  return {
    routes: [...subscriptionRoutes({ auth, store, writes: ctx.writes, tenancy, now }), ...integrationRoutes(auth)],
    async close() {
      await scheduler.close();
      await leases.close();
    },
  };
}
