// Events to any HTTP tracking API that speaks Segment's spec (Segment, RudderStack and
// others): page views as page calls, $identify as identify calls, other events as track
// calls. Each is a mapping (one invocation per matching mapping), with its own endpoint
// and payload; the write key is sent as HTTP basic auth as Segment's HTTP API expects.
import type { HogFunctionTemplate } from './types.js';

const code = `let res := fetch(concat(inputs.api_url, '/v1/', inputs.call), {
  'method': 'POST',
  'headers': {
    'Content-Type': 'application/json',
    'Authorization': concat('Basic ', base64Encode(concat(inputs.write_key, ':')))
  },
  'body': inputs.payload
})

if (res.status >= 400) {
  throw Error(f'The {inputs.call} call failed with status {res.status}: {res.body}')
}
`;

const callInput = (call: string) => ({ key: 'call', type: 'string', label: 'Call', secret: false, required: true, hidden: true, default: call });
const common = { messageId: '{event.uuid}', timestamp: '{event.timestamp}', userId: '{event.distinct_id}' };

export const segmentApiTemplate: HogFunctionTemplate = {
  id: 'template-segment-api',
  name: 'Segment-compatible HTTP API',
  description: 'Sends page, identify and track calls to an HTTP API that follows Segment\'s spec',
  type: 'destination',
  status: 'beta',
  free: false,
  category: ['Custom', 'Analytics'],
  icon_url: '/static/services/segment.png',
  code,
  inputs_schema: [
    { key: 'api_url', type: 'string', label: 'API URL', secret: false, required: true, default: 'https://api.segment.io' },
    { key: 'write_key', type: 'string', label: 'Write key', secret: true, required: true },
  ],
  filters: null,
  masking: null,
  mapping_templates: [
    {
      name: 'Page views',
      include_by_default: true,
      filters: { events: [{ id: '$pageview', name: '$pageview', type: 'events', order: 0 }] },
      inputs: null,
      inputs_schema: [
        callInput('page'),
        {
          key: 'payload', type: 'json', label: 'Payload', secret: false, required: true,
          default: { ...common, name: '{event.properties.$pathname}', properties: { url: '{event.properties.$current_url}', title: '{event.properties.title}', referrer: '{event.properties.$referrer}' } },
        },
      ],
    },
    {
      name: 'Identifies',
      include_by_default: true,
      filters: { events: [{ id: '$identify', name: '$identify', type: 'events', order: 0 }] },
      inputs: null,
      inputs_schema: [
        callInput('identify'),
        { key: 'payload', type: 'json', label: 'Payload', secret: false, required: true, default: { ...common, traits: '{person.properties}' } },
      ],
    },
    {
      name: 'All events as track calls',
      include_by_default: false,
      filters: { events: [{ id: null, name: 'All events', type: 'events', order: 0 }] },
      inputs: null,
      inputs_schema: [
        callInput('track'),
        { key: 'payload', type: 'json', label: 'Payload', secret: false, required: true, default: { ...common, event: '{event.event}', properties: '{event.properties}' } },
      ],
    },
  ],
};
