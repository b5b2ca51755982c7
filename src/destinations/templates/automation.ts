// Workflow tools that start a run from a webhook: Zapier ("Catch Hook") and Make (a
// scenario's custom webhook). Both take any JSON body; PostHog's ids and input names.
import type { HogFunctionTemplate } from './types.js';

const eventData = {
  eventUuid: '{event.uuid}', event: '{event.event}', teamId: '{project.id}', distinctId: '{event.distinct_id}',
  properties: '{event.properties}', elementsChain: '{event.elements_chain}', timestamp: '{event.timestamp}',
  person: { uuid: '{person.id}', properties: '{person.properties}' },
};

// `hook` is a full hooks.zapier.com URL or only its path (what Zapier's PostHog app stores).
const zapierCode = `let path := inputs.hook
let base := 'https://hooks.zapier.com/'
if (startsWith(path, base)) {
  path := substring(path, length(base) + 1, length(path) - length(base))
}
while (startsWith(path, '/')) {
  path := substring(path, 2, length(path) - 1)
}

let res := fetch(f'{base}{path}', {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': inputs.body
})

if (inputs.debug) {
  print('Response', res.status, res.body)
}
if (res.status >= 400) {
  throw Error(f'Zapier did not take the event: {res.status}: {res.body}')
}
`;

export const zapierTemplate: HogFunctionTemplate = {
  id: 'template-zapier',
  name: 'Zapier',
  description: 'Starts a Zap from a Zapier webhook with the event',
  type: 'destination',
  status: 'stable',
  free: true,
  category: ['Custom'],
  icon_url: '/static/services/zapier.png',
  code: zapierCode,
  inputs_schema: [
    { key: 'hook', type: 'string', label: 'Zapier hook path', description: 'The Catch Hook URL, or its path after https://hooks.zapier.com/', secret: false, required: true },
    {
      key: 'body', type: 'json', label: 'JSON Body', secret: false, required: false,
      default: { hook: { id: '{source.url}', event: '{event}', target: 'https://hooks.zapier.com' }, data: eventData },
    },
    { key: 'debug', type: 'boolean', label: 'Log responses', secret: false, required: false, default: false },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

const makeCode = `if (not match(inputs.webhookUrl, '^https://hook\\\\.[a-z0-9-]+\\\\.make\\\\.com/')) {
  throw Error('The webhook URL must be a Make webhook: https://hook.<region>.make.com/...')
}

let res := fetch(inputs.webhookUrl, {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': inputs.body
})

if (res.status >= 400) {
  throw Error(f'Make did not take the event: {res.status}: {res.body}')
}
`;

export const makeTemplate: HogFunctionTemplate = {
  id: 'template-make',
  name: 'Make',
  description: 'Starts a Make scenario from its custom webhook with the event',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Custom'],
  icon_url: '/static/services/make.png',
  code: makeCode,
  inputs_schema: [
    { key: 'webhookUrl', type: 'string', label: 'Webhook URL', secret: false, required: true },
    { key: 'body', type: 'json', label: 'JSON Body', secret: false, required: true, default: { data: eventData } },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
