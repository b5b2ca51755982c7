// Discord through a channel webhook. Discord answers 204 when it posted the message.
import type { HogFunctionTemplate } from './types.js';

const code = `let res := fetch(inputs.webhook_url, {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': {
    'content': inputs.content
  }
})

if (res.status >= 300) {
  throw Error(f'Discord did not post the message: {res.status}: {res.body}')
}
`;

export const discordTemplate: HogFunctionTemplate = {
  id: 'template-discord',
  name: 'Discord',
  description: 'Sends a message to a Discord channel',
  type: 'destination',
  status: 'stable',
  free: true,
  category: ['Customer Success'],
  icon_url: '/static/services/discord.png',
  code,
  inputs_schema: [
    {
      key: 'webhook_url', type: 'string', label: 'Webhook URL', secret: true, required: true,
      description: 'Channel settings → Integrations → Webhooks; it starts with https://discord.com/api/webhooks/',
    },
    { key: 'content', type: 'string', label: 'Content', secret: false, required: false, default: '**{person.name}** triggered event: \'{event.event}\'' },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
