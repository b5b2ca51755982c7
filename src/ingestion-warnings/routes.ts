// GET /api/projects/:id/ingestion_warnings/ (and its /api/environments/ twin): the last
// 30 days of warnings, summarized per type in the query worker (./tasks.ts).
import type { ManagementAuth } from '../access/index.js';
import { json } from '../http/reply.js';
import type { Route } from '../http/types.js';
import type { TaskRunner } from '../pools/index.js';
import type { WarningTasks } from './tasks.js';
import { WARNINGS_KEPT_MS } from './retention.js';

export function warningRoutes({ auth, scans }: { auth: ManagementAuth; scans: TaskRunner<WarningTasks> }): Route[] {
  return auth.projectRoutes({
    // PostHog keeps this internal; here a person:read key may read it.
    methods: ['GET'], path: 'ingestion_warnings', scope: 'person',
    async handler(req, { project }) {
      const results = await scans.run('warnings', { projectId: project.id, sinceMs: Date.now() - WARNINGS_KEPT_MS, search: req.query.get('q') ?? undefined });
      return json(200, { results });
    },
  });
}
