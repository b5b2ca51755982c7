// Microsoft Teams through a workflow ("Post to a channel when a webhook request is
// received") or an incoming webhook: an Adaptive Card with the text and a link to the
// event. Teams answers 200 or 202 when it accepted the message.
import type { HogFunctionTemplate } from './types.js';

const code = `let card := {
  'type': 'AdaptiveCard',
  '$schema': 'http://adaptivecards.io/schemas/adaptive-card.json',
  'version': '1.4',
  'body': [{'type': 'TextBlock', 'text': inputs.text, 'wrap': true}],
  'actions': [{'type': 'Action.OpenUrl', 'title': 'View event', 'url': event.url}]
}

let res := fetch(inputs.webhook_url, {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': {
    'type': 'message',
    'attachments': [{'contentType': 'application/vnd.microsoft.card.adaptive', 'content': card}]
  }
})

if (res.status >= 300) {
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
    { key: 'webhook_url', type: 'string', label: 'Webhook URL', secret: true, required: true },
    { key: 'text', type: 'string', label: 'Text', secret: false, required: false, default: '**{person.name}** triggered event: \'{event.event}\'' },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
