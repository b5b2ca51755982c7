// PostHog's definitions API under /api/projects/:project_id/ and /api/environments/:project_id/:
//   GET                 property_definitions/       (scope property_definition) filtered, paged
//   GET, PATCH, DELETE  property_definitions/:id/   PATCH sets property_type (HogQL reads it so)
//   GET                 event_definitions/          (scope event_definition) filtered, paged
//   GET, DELETE         event_definitions/:id/
import type { ManagementAuth } from '../access/index.js';
import { errors } from '../errors.js';
import { jsonObject } from '../http/body.js';
import { choiceField } from '../http/fields.js';
import { paginate } from '../http/paginate.js';
import { json, noContent } from '../http/reply.js';
import type { HttpRequest, Route } from '../http/types.js';
import type { StateWrites } from '../state/index.js';
import { deleteEventDefinitionCommand, deletePropertyDefinitionCommand, savePropertyDefinitionCommand } from './commands.js';
import { filterEventDefinitions, filterProperties, propertyListQuery } from './list-query.js';
import { eventDefinitionBody, propertyDefinitionBody, sessionPropertyBody } from './present.js';
import { eventDefinitionById, eventDefinitions, propertyDefinitionById, propertyDefinitions, seenOnEvents } from './read.js';
import { PROPERTY_TYPES, type PropertyDefinitionRecord } from './records.js';
import { SESSION_PROPERTIES } from './session-properties.js';
import type { DefinitionsTables } from './tables.js';

export interface DefinitionRoutesDeps {
  auth: ManagementAuth;
  store: DefinitionsTables;
  writes: StateWrites;
}

// The fields a free PostHog lets a PATCH change: the type alone (is_numerical follows it).
const PATCHABLE = ['name', 'is_numerical', 'property_type', 'tags'] as const;

function patched(d: PropertyDefinitionRecord, body: Record<string, unknown>): PropertyDefinitionRecord | null {
  const type = choiceField(body, 'property_type', PROPERTY_TYPES, true);
  const current: Record<(typeof PATCHABLE)[number], unknown> = { name: d.name, is_numerical: d.is_numerical, property_type: d.property_type, tags: [] };
  const changed = PATCHABLE.filter((f) => body[f] !== undefined && JSON.stringify(body[f]) !== JSON.stringify(current[f]));
  if (changed.length === 0) return null;
  if (changed.length > 1 || changed[0] !== 'property_type') throw errors.premiumFeature();
  return { ...d, property_type: type ?? null, is_numerical: type === 'Numeric' };
}

function found<T>(record: T | undefined): T {
  if (record === undefined) throw errors.notFound();
  return record;
}

export function definitionRoutes({ auth, store, writes }: DefinitionRoutesDeps): Route[] {
  const property = (req: HttpRequest, projectId: number) => found(propertyDefinitionById(store, projectId, req.params.id));
  const event = (req: HttpRequest, projectId: number) => found(eventDefinitionById(store, projectId, req.params.id));
  return [
    ...auth.projectRoutes({
      methods: ['GET'], path: 'property_definitions', scope: 'property_definition',
      handler(req, { project }) {
        const q = propertyListQuery(req.query);
        if (q.kind === 'session') {
          const page = paginate(req, SESSION_PROPERTIES.filter(([name]) => q.search === null || q.search(name)));
          return json(200, { ...page, results: page.results.map(([name, type]) => sessionPropertyBody(name, type)) });
        }
        const defs = propertyDefinitions(store, project.id, q.kind, q.group ?? undefined);
        const listed = filterProperties(defs, q, (name) => seenOnEvents(store, project.id, name, q.eventNames ?? []));
        const page = paginate(req, listed);
        return json(200, { ...page, results: page.results.map((l) => propertyDefinitionBody(l.definition, l.seen)) });
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'property_definitions/:id', scope: 'property_definition',
      handler: (req, { project }) => json(200, propertyDefinitionBody(property(req, project.id))),
    }),
    ...auth.projectRoutes({
      methods: ['PATCH'], path: 'property_definitions/:id', scope: 'property_definition',
      async handler(req, { project }) {
        const d = property(req, project.id);
        const next = patched(d, jsonObject(req));
        const saved = next === null ? d : await writes.submit(savePropertyDefinitionCommand, { projectId: project.id, definition: next });
        return json(200, propertyDefinitionBody(saved));
      },
    }),
    ...auth.projectRoutes({
      methods: ['DELETE'], path: 'property_definitions/:id', scope: 'property_definition',
      async handler(req, { project }) {
        await writes.submit(deletePropertyDefinitionCommand, { projectId: project.id, definition: property(req, project.id) });
        return noContent();
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'event_definitions', scope: 'event_definition',
      handler(req, { project }) {
        const page = paginate(req, filterEventDefinitions(eventDefinitions(store, project.id), req.query));
        return json(200, { ...page, results: page.results.map(eventDefinitionBody) });
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: 'event_definitions/:id', scope: 'event_definition',
      handler: (req, { project }) => json(200, eventDefinitionBody(event(req, project.id))),
    }),
    ...auth.projectRoutes({
      methods: ['DELETE'], path: 'event_definitions/:id', scope: 'event_definition',
      async handler(req, { project }) {
        await writes.submit(deleteEventDefinitionCommand, { projectId: project.id, definition: event(req, project.id) });
        return noContent();
      },
    }),
  ];
}
