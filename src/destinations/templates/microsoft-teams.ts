// Microsoft Teams through a workflow ("Post to a channel when a webhook request is
// received", Power Automate or Logic Apps) or an incoming webhook: a message with one
// Adaptive Card holding the text. Teams answers 200 or 202 when it accepted it.
// PostHog's id and input names (webhookUrl, text); functions made from hedgerow's earlier
// version of this template sent `webhook_url`, which still works.
import type { HogFunctionTemplate } from './types.js';

const code = `let url := inputs.webhookUrl ?? inputs.webhook_url
if (empty(url)) {
  throw Error('The webhook URL is missing')
}

let card := {
  'type': 'AdaptiveCard',
  '$schema': 'http://adaptivecards.io/schemas/adaptive-card.json',
  'version': '1.2',
  'body': [{'type': 'TextBlock', 'text': inputs.text, 'wrap': true}]
}

let res := fetch(url, {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': {
    'type': 'message',
    'attachments': [{'contentType': 'application/vnd.microsoft.card.adaptive', 'contentUrl': null, 'content': card}]
  }
})

if (res.status >= 400) {
  throw Error(f'Microsoft Teams did not accept the message: {res.status}: {res.body}')
}
`;

export const teamsTemplate: HogFunctionTemplate = {
  id: 'template-microsoft-teams',
  name: 'Microsoft Teams',
  description: 'Sends a message to a Microsoft Teams channel',
  type: 'destination',
  status: 'stable',
  free: true,
  category: ['Customer Success'],
  icon_url: '/static/services/microsoft-teams.png',
  code,
  inputs_schema: [
    {
      key: 'webhookUrl', type: 'string', label: 'Webhook URL', secret: false, required: false,
      description: 'A Teams workflow\'s "When a Teams webhook request is received" URL, or an incoming webhook\'s.',
    },
    { key: 'text', type: 'string', label: 'Text', secret: false, required: true, default: '**{person.name}** triggered event: \'{event.event}\'' },
    { key: 'webhook_url', type: 'string', label: 'Webhook URL (earlier name)', secret: true, required: false, hidden: true },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
