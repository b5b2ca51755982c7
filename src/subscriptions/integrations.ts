// PostHog's integrations API (/api/projects/:id/integrations/ and /api/environments/, scope
// integration) as a project with none connected: hedgerow connects no Slack app (or any other
// kind). The list is empty, an id is not found, and connecting one is answered as PostHog
// answers a kind its instance has not configured (a self-hosted PostHog without a Slack app),
// saying what hedgerow does instead. Here because subscriptions are what would use one.
import type { ManagementAuth } from '../access/index.js';
import { errors } from '../errors.js';
import { json } from '../http/reply.js';
import type { Route } from '../http/types.js';
import { SLACK_SUPPORTED } from './validate.js';

export function integrationRoutes(auth: ManagementAuth): Route[] {
  const none = () => { throw errors.notFound(); };
  return [
    ...auth.projectRoutes({ methods: ['GET'], path: 'integrations', scope: 'integration', handler: () => json(200, { count: 0, next: null, previous: null, results: [] }) }),
    ...auth.projectRoutes({
      methods: ['POST'], path: 'integrations', scope: 'integration',
      handler() { throw errors.validation(`Kind not configured: hedgerow connects no integrations. For Slack subscriptions, ${SLACK_SUPPORTED}.`); },
    }),
    ...auth.projectRoutes({ methods: ['GET', 'DELETE'], path: 'integrations/:id', scope: 'integration', handler: none }),
  ];
}
