// Slack through an incoming webhook (Slack app → Incoming Webhooks): a message with text
// and Block Kit blocks. Slack answers 200 "ok" when it posted the message.
import type { HogFunctionTemplate } from './types.js';

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

export const slackTemplate: HogFunctionTemplate = {
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
