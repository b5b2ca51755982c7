// The HTTP webhook: one request per event, its URL, method, JSON body and headers all
// templated from the event; a response of 300 or more fails the invocation.
import type { HogFunctionTemplate } from './types.js';

// The request is built where fetch() takes it, not held in a local: a local stays on the
// program's stack while it waits for the answer, and the stack is converted out of the VM
// and back into it with the suspended program, and walked by the bound on what leaves it
// (src/hog/host.ts), each time in full: with a body that sends the whole event and person,
// the program cost 1.6 times what it does now (bench/webhook-slices).
const code = `if (inputs.debug) {
  print('Request', inputs.url, {
    'method': inputs.method,
    'headers': inputs.headers,
    'body': inputs.body
  })
}

let res := fetch(inputs.url, {
  'method': inputs.method,
  'headers': inputs.headers,
  'body': inputs.body
})

if (res.status >= 300) {
  throw Error(f'Webhook failed with status {res.status}: {res.body}')
}

if (inputs.debug) {
  print('Response', res.status, res.body)
}
`;

export const webhookTemplate: HogFunctionTemplate = {
  id: 'template-webhook',
  name: 'HTTP Webhook',
  description: 'Sends a webhook templated by the incoming event data',
  type: 'destination',
  status: 'stable',
  free: false,
  category: ['Custom'],
  icon_url: '/static/services/webhook.svg',
  code,
  inputs_schema: [
    { key: 'url', type: 'string', label: 'Webhook URL', secret: false, required: true },
    {
      key: 'method', type: 'choice', label: 'Method', secret: false, required: false, default: 'POST',
      choices: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((m) => ({ label: m, value: m })),
    },
    { key: 'body', type: 'json', label: 'JSON Body', secret: false, required: false, default: { event: '{event}', person: '{person}' } },
    {
      key: 'headers', type: 'dictionary', label: 'Headers', secret: false, required: false,
      default: { 'Content-Type': 'application/json', Accept: 'application/json' },
    },
    { key: 'debug', type: 'boolean', label: 'Log responses', description: 'Logs the request and response for debugging.', secret: false, required: false, default: false },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
