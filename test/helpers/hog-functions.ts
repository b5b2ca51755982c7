import { bearer, request } from './http.js';

// The hog function the delivery tests make: PostHog's webhook template, posting
// {"n": <the event's property n>} to `sinkUrl`/deliver for every `order` event.
export function orderWebhook(sinkUrl: string) {
  return {
    template_id: 'template-webhook', enabled: true,
    inputs: { url: { value: `${sinkUrl}/deliver` }, body: { value: { n: '{event.properties.n}' } } },
    filters: { events: [{ id: 'order', type: 'events' }] },
  };
}

// Makes a hog function through the API as the project's personal key (`url`: the server's).
export function createHogFunction(url: string, keys: { project_id: number; personal_api_key: string }, body: unknown) {
  return request(`${url}/api/environments/${keys.project_id}/hog_functions/`, {
    method: 'POST', headers: { ...bearer(keys.personal_api_key), 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
}
