// Liveness, readiness and Prometheus metrics.
import type { Route } from '../http/types.js';
import { json } from '../http/reply.js';
import type { Metrics } from '../metrics.js';

export function opsRoutes({ metrics, ready }: { metrics: Metrics; ready: () => { ok: boolean; checks: Record<string, boolean> } }): Route[] {
  return [
    { methods: ['GET', 'HEAD'], pattern: '/_liveness', bodyLimit: 0, handler: () => json(200, { status: 'ok' }) },
    {
      methods: ['GET', 'HEAD'], pattern: '/_readiness', bodyLimit: 0,
      handler: () => {
        const r = ready();
        return json(r.ok ? 200 : 503, { status: r.ok ? 'ok' : 'unavailable', checks: r.checks });
      },
    },
    {
      methods: ['GET'], pattern: '/metrics', bodyLimit: 0,
      handler: async () => ({
        status: 200, headers: { 'Content-Type': metrics.registry.contentType }, body: await metrics.registry.metrics(),
      }),
    },
  ];
}
