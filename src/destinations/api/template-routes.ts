// GET …/hog_function_templates/ and …/:id/ (PostHog's hog function template API): the
// templates hedgerow ships, of the asked types (`type` or `types`, comma lists; destination
// by default), deprecated and hidden ones left out, the most used first, then by name.
import type { ManagementAuth } from '../../access/index.js';
import { errors } from '../../errors.js';
import { paginate } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { Route } from '../../http/types.js';
import type { DestinationsTables } from '../tables.js';
import { templateUsage } from '../store.js';
import { templateById, TEMPLATES } from '../templates/index.js';
import { templateResponse } from './serialize.js';

const PATH = 'hog_function_templates';

export function templateRoutes({ auth, store }: { auth: ManagementAuth; store: DestinationsTables }): Route[] {
  return [
    ...auth.projectRoutes({
      methods: ['GET'], path: PATH, scope: 'hog_function',
      handler(req) {
        const asked = (req.query.get('types') ?? req.query.get('type') ?? 'destination').split(',').map((t) => t.trim()).filter(Boolean);
        const usage = templateUsage(store);
        const shown = TEMPLATES
          .filter((t) => asked.includes(t.type) && t.status !== 'deprecated' && t.status !== 'hidden')
          .sort((a, b) => (usage.get(b.id) ?? 0) - (usage.get(a.id) ?? 0) || a.name.localeCompare(b.name));
        const page = paginate(req, shown);
        return json(200, { ...page, results: page.results.map(templateResponse) });
      },
    }),
    ...auth.projectRoutes({
      methods: ['GET'], path: `${PATH}/:id`, scope: 'hog_function',
      handler(req) {
        const template = templateById(req.params.id);
        if (!template) throw errors.notFound();
        return json(200, templateResponse(template));
      },
    }),
  ];
}
