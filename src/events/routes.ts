// PostHog's events API: list newest first with filters, and one event by uuid. Under
// /api/projects/:project_id/ and /api/environments/:project_id/ like every project route:
// PostHog registers it under both (environments first, projects kept for compatibility).
import type { Route, HttpRequest } from '../http/types.js';
import { json } from '../http/reply.js';
import { pageUrl } from '../http/paginate.js';
import { errors } from '../errors.js';
import type { ManagementAuth } from '../access/index.js';
import type { EventsTables, StoredEventValue } from './tables.js';
import type { TaskRunner } from '../pools/index.js';
import { eventByUuid } from './query.js';
import type { EventTasks } from './tasks.js';
import { resolvePersonUuid } from '../persons/store.js';
import type { PersonsTables } from '../persons/index.js';

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

// An event keeps the person it resolved to when processed; `current` follows later merges.
function toApi(e: StoredEventValue, current: (personUuid: string) => string) {
  return {
    id: e.uuid, uuid: e.uuid, distinct_id: e.distinct_id, properties: e.properties, event: e.event,
    timestamp: e.timestamp, person: e.person_id ? { id: current(e.person_id) } : null, elements: [], elements_chain: e.elements_chain,
  };
}

function timeParam(req: HttpRequest, name: string): number | undefined {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return undefined;
  const t = Date.parse(raw);
  if (Number.isNaN(t)) throw errors.validation(`Invalid datetime: ${raw}`, name);
  return t;
}

function limitParam(req: HttpRequest): number {
  const raw = req.query.get('limit');
  if (raw === null || raw === '') return DEFAULT_LIMIT;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw errors.validation('A valid positive integer is required.', 'limit');
  return Math.min(Number(raw), MAX_LIMIT);
}

// Listings and values scans run off the HTTP thread, in the query pool (./tasks.ts).
export function eventRoutes({ auth, store, scans }: { auth: ManagementAuth; store: EventsTables & PersonsTables; scans: TaskRunner<EventTasks> }): Route[] {
  return [
    ...auth.projectRoutes({
      methods: ['GET'], path: 'events', scope: 'query',
      async handler(req, { project }) {
        const limit = limitParam(req);
        const cursorUuid = req.query.get('before_uuid');
        const beforeMs = timeParam(req, 'before');
        const { rows, more } = await scans.run('events', {
          projectId: project.id,
          event: req.query.get('event') || undefined,
          distinctId: req.query.get('distinct_id') || undefined,
          afterMs: timeParam(req, 'after'),
          beforeMs,
          cursor: cursorUuid && beforeMs !== undefined ? { ts: beforeMs, uuid: cursorUuid } : undefined,
          limit,
        });
        let next: string | null = null;
        if (more && rows.length > 0) {
          const last = rows[rows.length - 1];
          next = pageUrl(req, { before: new Date(last.ts).toISOString(), before_uuid: last.value.uuid });
        }
        return json(200, { next, results: rows.map((r) => toApi(r.value, (u) => resolvePersonUuid(store, project.id, u))) });
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'events/values', scope: 'query',
      async handler(req, { project }) {
        const key = req.query.get('key');
        if (!key) throw errors.required('key');
        const format = req.query.get('format') ?? 'json';
        if (format !== 'json' && format !== 'csv') throw errors.validation('format must be csv or json.', 'format');
        const values = await scans.run('values', {
          projectId: project.id, key, value: req.query.get('value') ?? undefined,
          eventName: req.query.get('event_name') ?? undefined, nowMs: Date.now(),
        });
        if (format === 'csv') {
          const csv = ['name', ...values.map((v) => `"${v.replace(/"/g, '""')}"`)].join('\n') + '\n';
          return { status: 200, headers: { 'Content-Type': 'text/csv' }, body: csv };
        }
        return json(200, values.map((name) => ({ name })));
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'events/:uuid', scope: 'query',
      handler(req, { project }) {
        const event = eventByUuid(store, project.id, req.params.uuid.toLowerCase());
        if (!event) throw errors.notFound();
        return json(200, toApi(event, (u) => resolvePersonUuid(store, project.id, u)));
      },
    }),
  ];
}
