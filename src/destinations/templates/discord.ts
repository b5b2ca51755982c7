// Discord through a channel webhook (Discord's "Execute Webhook": a JSON body with
// `content` and `allowed_mentions`); Discord answers 204 when it posted the message.
// PostHog's id and input names (webhookUrl, content, allowedMentions); functions made from
// hedgerow's earlier version of this template sent `webhook_url`, which still works.
import type { HogFunctionTemplate } from './types.js';

const code = `let url := inputs.webhookUrl ?? inputs.webhook_url
if (empty(url) or not match(url, '^https://(ptb\\\\.|canary\\\\.)?discord(app)?\\\\.com/api/webhooks/')) {
  throw Error('The webhook URL must be a Discord channel webhook: https://discord.com/api/webhooks/...')
}

// Nobody is pinged unless the function says so: event data may contain @everyone.
let parse := []
if (inputs.allowedMentions == 'roles_users') {
  parse := ['roles', 'users']
} else if (inputs.allowedMentions == 'everyone') {
  parse := ['everyone', 'roles', 'users']
}

let res := fetch(url, {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': {'content': inputs.content, 'allowed_mentions': {'parse': parse}}
})

if (res.status >= 400) {
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
      key: 'webhookUrl', type: 'string', label: 'Webhook URL', secret: false, required: false,
      description: 'Channel settings → Integrations → Webhooks; it starts with https://discord.com/api/webhooks/',
    },
    { key: 'content', type: 'string', label: 'Content', secret: false, required: true, default: '**{person.name}** triggered event: \'{event.event}\'' },
    {
      key: 'allowedMentions', type: 'choice', label: 'Allowed mentions', secret: false, required: true, default: 'none',
      description: 'Which mentions in the message ping anyone; by default none do.',
      choices: [
        { label: 'None', value: 'none' }, { label: 'Roles and users', value: 'roles_users' },
        { label: 'Everyone, roles and users', value: 'everyone' },
      ],
    },
    { key: 'webhook_url', type: 'string', label: 'Webhook URL (earlier name)', secret: true, required: false, hidden: true },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
