// A generic JSON POST: the event, its person and chosen properties to any endpoint that
// takes JSON, optionally with a bearer token. Retried by fetch on 408, 429 and 5xx; any
// other answer of 400 or more fails the invocation.
import type { HogFunctionTemplate } from './types.js';

const code = `let headers := {'Content-Type': 'application/json'}
if (inputs.token) {
  headers['Authorization'] := concat('Bearer ', inputs.token)
}

let res := fetch(inputs.url, {
  'method': 'POST',
  'headers': headers,
  'body': inputs.payload
})

if (res.status >= 400) {
  throw Error(f'The endpoint answered {res.status}: {res.body}')
}
`;

export const jsonPostTemplate: HogFunctionTemplate = {
  id: 'template-json-post',
  name: 'JSON POST',
  description: 'Posts each event as JSON to an endpoint of your own, with an optional bearer token',
  type: 'destination',
  status: 'stable',
  free: true,
  category: ['Custom'],
  icon_url: '/static/services/webhook.svg',
  code,
  inputs_schema: [
    { key: 'url', type: 'string', label: 'Endpoint URL', secret: false, required: true },
    { key: 'token', type: 'string', label: 'Bearer token', description: 'Sent as Authorization: Bearer <token> when set.', secret: true, required: false },
    {
      key: 'payload', type: 'json', label: 'Payload', secret: false, required: false,
      default: {
        uuid: '{event.uuid}', event: '{event.event}', distinct_id: '{event.distinct_id}', timestamp: '{event.timestamp}',
        properties: '{event.properties}', person: { id: '{person.id}', properties: '{person.properties}' },
      },
    },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
