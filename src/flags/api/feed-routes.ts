// The local-evaluation feed for server SDKs: GET /flags/definitions (what posthog-node
// 5 calls; cohorts always included, as PostHog's Rust service does) and its older form
// GET /api/feature_flag/local_evaluation (cohorts only with `send_cohorts`). A personal
// API key with feature_flag:read; the project comes from `token`. ETag / If-None-Match
// answer 304 when nothing changed; an organization over its flag quota gets 402, which
// makes posthog-node drop its flags. Each answered call counts as one flag request.
import { createHash } from 'node:crypto';
import type { AuthContext, ManagementAuth, ProjectAccess, TenancyStore, Project } from '../../access/index.js';
import { errors } from '../../errors.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { FlagMeter } from '../../quota/index.js';
import type { FlagsTables } from '../tables.js';
import type { PersonsTables } from '../../persons/index.js';
import { feedBody } from '../definitions/feed.js';
import { groupTypeMapping } from '../definitions/group-types.js';
import { liveDefinitions } from '../definitions/load.js';
import { definitionsVersion } from '../definitions/store.js';

export interface FeedDeps {
  auth: ManagementAuth;
  store: FlagsTables & PersonsTables;
  meter: FlagMeter;
  tenancy: TenancyStore;
  access: ProjectAccess;
}

interface Built {
  version: number;
  groupTypes: string;
  body: string;
  etag: string;
}

const CACHE_CONTROL = 'private, must-revalidate';

// DRF's BooleanField, plus PostHog's rule that a bare `send_cohorts` means true.
function sendCohorts(req: HttpRequest): boolean {
  const raw = req.query.get('send_cohorts');
  if (raw === null) return false;
  if (['', 'true', 'True', 'TRUE', '1', 'yes', 'on', 'y', 't'].includes(raw)) return true;
  if (['false', 'False', 'FALSE', '0', 'no', 'off', 'n', 'f'].includes(raw)) return false;
  throw errors.notABoolean('send_cohorts');
}

// W/"abc", "abc" and abc all name the tag abc.
function requestedTag(req: HttpRequest): string | null {
  const raw = req.headers['if-none-match']?.trim();
  if (!raw) return null;
  return (raw.startsWith('W/"') ? raw.slice(2) : raw).replace(/^"+|"+$/g, '') || null;
}

export function feedRoutes({ auth, store, meter, tenancy, access }: FeedDeps): Route[] {
  // Bodies by project and cohort mode, rebuilt when the definitions or group types change.
  const built = new Map<string, Built>();

  function current(project: Project, withCohorts: boolean): Built {
    const slot = `${project.id}:${withCohorts}`;
    const groupTypes = groupTypeMapping(store, project.id);
    const groupTypesText = JSON.stringify(groupTypes);
    const hit = built.get(slot);
    if (hit && hit.version === definitionsVersion(store, project.id) && hit.groupTypes === groupTypesText) return hit;
    const { version, flags, cohorts } = liveDefinitions(store, project.id);
    const body = JSON.stringify(feedBody({ flags, cohorts, groupTypeMapping: groupTypes, sendCohorts: withCohorts }));
    const entry = { version, groupTypes: groupTypesText, body, etag: createHash('sha256').update(body).digest('hex').slice(0, 32) };
    built.set(slot, entry);
    return entry;
  }

  function serve(req: HttpRequest, ctx: AuthContext, withCohorts: boolean): HttpResponse {
    const token = req.query.get('token');
    if (!token) throw errors.required('token');
    const byToken = tenancy.projectByToken(token);
    if (!byToken) throw errors.invalidProjectKey();
    const project = auth.resolveProject(ctx, String(byToken.id));
    access.check(ctx, project, 'read', 'member');
    const now = Date.now();
    if (meter.exceeded(project.organization_id, now)) throw errors.quotaLimited();
    meter.record(project.organization_id, now);
    const feed = current(project, withCohorts);
    const headers = { ETag: `W/"${feed.etag}"`, 'Cache-Control': CACHE_CONTROL };
    if (requestedTag(req) === feed.etag) return { status: 304, headers, body: null };
    return { status: 200, headers: { 'Content-Type': 'application/json', ...headers }, body: feed.body };
  }

  return [
    auth.route({
      methods: ['GET'], pattern: '/flags/definitions', scope: 'feature_flag',
      handler: (req, ctx) => serve(req, ctx, true),
    }),
    auth.route({
      methods: ['GET'], pattern: '/api/feature_flag/local_evaluation', scope: 'feature_flag',
      handler: (req, ctx) => serve(req, ctx, sendCohorts(req)),
    }),
  ];
}
