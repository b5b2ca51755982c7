// Persons, groups and group types, under /api/projects/:id/ and
// /api/environments/:id/ as in PostHog. Reads only, plus person deletion.
import type { ManagementAuth } from '../access/index.js';
import { errors } from '../errors.js';
import { json } from '../http/reply.js';
import type { HttpRequest, Route } from '../http/types.js';
import type { PersonRecord, PersonsTables } from './tables.js';
import type { TaskRunner } from '../pools/index.js';
import { pageOf, pageWindow, scanWindow } from '../http/paginate.js';
import type { PersonTasks } from './tasks.js';
import { personFilter } from './person-filter.js';
import { presentGroup, presentGroupType, presentPerson } from './present.js';
import { checkPersonPropertyFilters, type PersonPropertyFilters } from './schemas.js';
import { groupByKey, groupTypeMapping, personById, personByUuid, personRecordByDistinctId } from './store.js';
import type { PersonOperations } from './operation-writer.js';
import { LogUnavailableError } from '../log/errors.js';
import type { Logger } from '../logger.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function propertyFilters(req: HttpRequest): PersonPropertyFilters | undefined {
  const raw = req.query.get('properties');
  if (!raw) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw errors.validation('Properties must be a JSON list of property filters.', 'properties');
  }
  if (!checkPersonPropertyFilters.Check(parsed)) throw errors.validation('Properties must be a JSON list of property filters.', 'properties');
  const other = parsed.find((f) => f.type !== undefined && f.type !== 'person');
  if (other) throw errors.validation(`Only person property filters are supported here, not "${other.type}".`, 'properties');
  return parsed;
}

// The person named in the path: by uuid or by numeric id, as PostHog accepts both.
function personFromPath(store: PersonsTables, projectId: number, param: string): PersonRecord {
  let person: PersonRecord | undefined;
  if (UUID.test(param)) person = personByUuid(store, projectId, param.toLowerCase());
  else if (/^\d+$/.test(param)) person = personById(store, projectId, Number(param));
  else {
    throw errors.validation(`The ID provided does not look like a personID. If you are using a distinctId, please use /persons?distinct_id=${param} instead.`);
  }
  if (!person) throw errors.notFound();
  return person;
}

function groupTypeIndexParam(req: HttpRequest): number {
  const raw = req.query.get('group_type_index');
  if (!raw) {
    throw errors.validation('You must pass ?group_type_index= in this URL. To get a list of valid group types, call /api/:project_id/groups_types/.', 'group_type_index', 'required');
  }
  if (!/^[0-4]$/.test(raw)) throw errors.validation('A valid group type index (0 to 4) is required.', 'group_type_index');
  return Number(raw);
}

// The lists that scan run off the HTTP thread, in the query pool (./tasks.ts).
export interface PersonRoutesDeps {
  auth: ManagementAuth;
  store: PersonsTables;
  operations: PersonOperations;
  scans: TaskRunner<PersonTasks>;
  log: Logger;
}

export function personRoutes({ auth, store, operations, scans, log }: PersonRoutesDeps): Route[] {
  return [
    ...auth.projectRoutes({
      methods: ['GET'], path: 'persons', scope: 'person',
      async handler(req, { project }) {
        const filter = {
          search: req.query.get('search') ?? undefined,
          email: req.query.get('email') ?? undefined,
          properties: propertyFilters(req),
        };
        const now = Date.now();
        const window = pageWindow(req);
        const withCount = req.query.has('include_total');
        const distinctId = req.query.get('distinct_id');
        if (!distinctId) return json(200, pageOf(req, window, await scans.run('persons', { projectId: project.id, filter, now, window, withCount }), withCount));
        // One person at most: found through its distinct id, not by scanning.
        const person = personRecordByDistinctId(store, project.id, distinctId);
        const found = person && personFilter(filter, now)(person) ? [presentPerson(person)] : [];
        return json(200, pageOf(req, window, scanWindow(found, window, withCount), withCount));
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'persons/:id', scope: 'person',
      handler(req, { project }) {
        return json(200, presentPerson(personFromPath(store, project.id, req.params.id)));
      },
    }),
    ...auth.projectRoutes({
      methods: ['DELETE'], path: 'persons/:id', scope: 'person',
      async handler(req, { project }) {
        const person = personFromPath(store, project.id, req.params.id);
        let applied: boolean;
        try {
          applied = await operations.deletePerson(project.id, person.uuid);
        } catch (err) {
          if (!(err instanceof LogUnavailableError)) throw err;
          throw errors.unavailable('The event log cannot take the deletion right now. Retry later.');
        }
        // Durable either way, and applied in its place in the log on every node; not yet
        // applied here only when this node's event store is far behind.
        if (!applied) log.warn('person deletion durable but not yet applied here', { project_id: project.id, person: person.uuid });
        // PostHog answers 202: its event deletion, when asked for, happens later.
        return { status: 202, body: null };
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'groups', scope: 'group',
      async handler(req, { project }) {
        const window = pageWindow(req);
        const page = pageOf(req, window, await scans.run('groups', {
          projectId: project.id, typeIndex: groupTypeIndexParam(req), keyPart: req.query.get('group_key') ?? '',
          search: req.query.get('search'), window,
        }), false);
        return json(200, { next: page.next, previous: page.previous, results: page.results });
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'groups/find', scope: 'group',
      handler(req, { project }) {
        const typeIndex = groupTypeIndexParam(req);
        const key = req.query.get('group_key');
        if (key === null) throw errors.required('group_key');
        const group = groupByKey(store, project.id, typeIndex, key);
        if (!group) throw errors.notFound();
        return json(200, { ...presentGroup(group), notebook: null });
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'groups_types', scope: 'group',
      handler(_req, { project }) {
        return json(200, groupTypeMapping(store, project.id).map(presentGroupType));
      },
    }),
  ];
}
