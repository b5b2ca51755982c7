// PostHog's source webhook endpoint, `POST|GET /public/webhooks/:id` (no authentication:
// the hog function's uuid is the secret; an extension after a `.` is ignored). An enabled
// source_webhook runs its Hog on the request (./source-webhook.ts); one the watcher
// disabled answers PostHog's 429 `{"error": "Disabled"}`; any other id PostHog's 404.
import { json } from '../../http/reply.js';
import type { HttpRequest, HttpResponse, Route } from '../../http/types.js';
import type { DestinationsTables } from '../tables.js';
import type { StoredHogFunction } from '../types.js';
import { WatcherState } from '../types.js';
import { acknowledgeEpoch, WATCHER_DEFAULTS } from '../runtime/watcher.js';
import { createSourceWebhooks, type SourceWebhookDeps } from './source-webhook.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// PostHog's limit on a webhook's raw body.
const BODY_LIMIT = 512_000;

export interface PublicWebhookDeps extends SourceWebhookDeps {
  watcherLockMs: number;
}

export function publicWebhookRoutes(store: DestinationsTables, deps: PublicWebhookDeps): { routes: Route[]; close(): Promise<void> } {
  const webhooks = createSourceWebhooks(deps);
  const watcher = { ...WATCHER_DEFAULTS, stateLockMs: deps.watcherLockMs };
  async function handler(req: HttpRequest): Promise<HttpResponse> {
    const id = String(req.params.id ?? '').split('.')[0];
    if (!UUID.test(id)) return json(404, { error: 'Not found' });
    let fn: StoredHogFunction | undefined;
    for (const key of store.hogFunctions.getKeys()) {
      if (key[1] === id) {
        fn = store.hogFunctions.get(key) as StoredHogFunction;
        break;
      }
    }
    if (!fn || fn.type !== 'source_webhook' || !fn.enabled || fn.deleted || !Array.isArray(fn.bytecode)) return json(404, { error: 'Not found' });
    const record = deps.ds.watcher.get(fn.id);
    if (record !== undefined && acknowledgeEpoch(record, fn.watcher_epoch, watcher, deps.now()).state === WatcherState.disabled) {
      return json(429, { error: 'Disabled' });
    }
    return webhooks.handle(fn, req);
  }
  return {
    routes: [{ methods: ['GET', 'POST'], pattern: '/public/webhooks/:id', bodyLimit: BODY_LIMIT, handler }],
    close: () => webhooks.close(),
  };
}
