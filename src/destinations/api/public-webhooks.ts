// PostHog's source webhook endpoint, `POST|GET /public/webhooks/:id` (no authentication:
// the hog function's uuid is the secret; an extension after a `.` is ignored). A source
// webhook's Hog is not run on requests here yet (it needs postHogCapture() to turn them
// into events): an enabled source_webhook answers 501 saying so, rather than 200 with
// nothing done; any other id answers PostHog's 404.
import { json } from '../../http/reply.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { DestinationsTables } from '../tables.js';
import type { StoredHogFunction } from '../types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// PostHog's limit on a webhook's raw body.
const BODY_LIMIT = 512_000;

export function publicWebhookRoutes(store: DestinationsTables): Route[] {
  function handler(req: HttpRequest): HttpResponse {
    const id = String(req.params.id ?? '').split('.')[0];
    if (!UUID.test(id)) return json(404, { error: 'Not found' });
    let fn: StoredHogFunction | undefined;
    for (const key of store.hogFunctions.getKeys()) {
      if (key[1] === id) {
        fn = store.hogFunctions.get(key) as StoredHogFunction;
        break;
      }
    }
    if (!fn || fn.type !== 'source_webhook' || !fn.enabled || fn.deleted) return json(404, { error: 'Not found' });
    return json(501, { error: 'Source webhooks are stored and test-run by this server, not run on requests yet' });
  }
  return [{ methods: ['GET', 'POST'], pattern: '/public/webhooks/:id', bodyLimit: BODY_LIMIT, handler }];
}
