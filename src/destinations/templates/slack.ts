// Slack, two ways: through an incoming webhook (Slack app → Incoming Webhooks; hedgerow's
// own template), and as a bot calling chat.postMessage (PostHog's `template-slack`, its
// input names). Both send text and Block Kit blocks.
import type { HogFunctionTemplate } from './types.js';
import { INTEGRATION_NOTE } from './integration.js';

const code = `let res := fetch(inputs.webhook_url, {
  'method': 'POST',
  'headers': {'Content-Type': 'application/json'},
  'body': {
    'text': inputs.text,
    'blocks': inputs.blocks
  }
})

if (res.status != 200) {
  throw Error(f'Slack did not post the message: {res.status}: {res.body}')
}
`;

export const slackWebhookTemplate: HogFunctionTemplate = {
  id: 'template-slack-webhook',
  name: 'Slack (incoming webhook)',
  description: 'Posts a message to a Slack channel through an incoming webhook',
  type: 'destination',
  status: 'stable',
  free: true,
  category: ['Customer Success'],
  icon_url: '/static/services/slack.png',
  code,
  inputs_schema: [
    {
      key: 'webhook_url', type: 'string', label: 'Incoming webhook URL', secret: true, required: true,
      description: 'Create one under your Slack app\'s Incoming Webhooks; it starts with https://hooks.slack.com/',
    },
    { key: 'text', type: 'string', label: 'Plain text message', secret: false, required: false, default: '*{person.name}* triggered event: \'{event.event}\'' },
    {
      key: 'blocks', type: 'json', label: 'Blocks', secret: false, required: false,
      description: 'Slack Block Kit blocks; the text above is the notification fallback.',
      default: [
        { type: 'section', text: { type: 'mrkdwn', text: '*{person.name}* triggered event: \'{event.event}\'' } },
        {
          type: 'actions',
          elements: [
            { type: 'button', text: { type: 'plain_text', text: 'View Person' }, url: '{person.url}' },
            { type: 'button', text: { type: 'plain_text', text: 'View Event' }, url: '{event.url}' },
          ],
        },
      ],
    },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};

// chat.postMessage answers 200 with {"ok": false, "error": ...} when it refused the message.
const botCode = `let token := inputs.access_token
if (empty(token)) {
  throw Error('No Slack bot token: set the access_token input (Slack connections are not available here)')
}

// Slack refuses some empty fields (an empty thread_ts): only those given are sent.
let body := {'channel': inputs.channel}
for (let key in ['text', 'blocks', 'icon_emoji', 'username', 'thread_ts']) {
  if (not empty(inputs[key])) {
    body[key] := inputs[key]
  }
}

let res := fetch('https://slack.com/api/chat.postMessage', {
  'method': 'POST',
  'headers': {'Authorization': f'Bearer {token}', 'Content-Type': 'application/json; charset=utf-8'},
  'body': body
})

if (res.status != 200 or res.body.ok != true) {
  throw Error(f'Slack did not post the message: {res.status}: {res.body}')
}
`;

export const slackTemplate: HogFunctionTemplate = {
  id: 'template-slack',
  name: 'Slack',
  description: 'Posts a message to a Slack channel as a bot (chat.postMessage)',
  type: 'destination',
  status: 'stable',
  free: true,
  category: ['Customer Success'],
  icon_url: '/static/services/slack.png',
  code: botCode,
  inputs_schema: [
    { key: 'slack_workspace', type: 'integration', integration: 'slack', label: 'Slack workspace', secret: false, required: false, description: INTEGRATION_NOTE },
    {
      key: 'access_token', type: 'string', label: 'Bot token', secret: true, required: false,
      description: 'The Slack app\'s bot token (xoxb-…), with chat:write (and chat:write.customize for the name and icon).',
    },
    { key: 'channel', type: 'integration_field', integration_key: 'slack_workspace', integration_field: 'slack_channel', label: 'Channel to post to', description: 'A channel ID (C0123ABC) or #name.', secret: false, required: true },
    { key: 'icon_emoji', type: 'string', label: 'Emoji icon', secret: false, required: false, default: ':hedgehog:' },
    { key: 'username', type: 'string', label: 'Bot name', secret: false, required: false, default: 'hedgerow' },
    {
      key: 'blocks', type: 'json', label: 'Blocks', secret: false, required: false,
      default: [
        { type: 'section', text: { type: 'mrkdwn', text: '*{person.name}* triggered event: \'{event.event}\'' } },
        {
          type: 'actions',
          elements: [
            { type: 'button', text: { type: 'plain_text', text: 'View Person' }, url: '{person.url}' },
            { type: 'button', text: { type: 'plain_text', text: 'Message source' }, url: '{source.url}' },
          ],
        },
      ],
    },
    { key: 'text', type: 'string', label: 'Plain text message', secret: false, required: false, default: '*{person.name}* triggered event: \'{event.event}\'' },
    { key: 'thread_ts', type: 'string', label: 'Reply in thread', description: 'The ts of the message to reply under; empty posts a new message.', secret: false, required: false },
  ],
  filters: null,
  masking: null,
  mapping_templates: null,
};
