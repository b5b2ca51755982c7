// Liveness, readiness and Prometheus metrics.
import type { Route } from '../http/types.js';
import { json } from '../http/reply.js';
import type { Metrics } from '../metrics.js';
import type { Readiness } from '../modules/index.js';

export function opsRoutes({ metrics, ready }: { metrics: Metrics; ready: () => Readiness }): Route[] {
  return [
    { methods: ['GET', 'HEAD'], pattern: '/_liveness', bodyLimit: 0, handler: () => json(200, { status: 'ok' }) },
    {
      methods: ['GET', 'HEAD'], pattern: '/_readiness', bodyLimit: 0,
      handler: () => {
        const r = ready();
        // A failing check's reason says why (a load balancer reads the status; an operator the body).
        return json(r.ok ? 200 : 503, { status: r.ok ? 'ok' : 'unavailable', checks: r.checks, ...(r.reasons ? { reasons: r.reasons } : {}) });
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
