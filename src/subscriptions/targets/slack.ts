// A Slack delivery through an incoming webhook (its URL is the target): PostHog's message,
// "Your subscription to the <kind> *<name>* is ready! 🎉", a section per insight with its
// picture (an image block when the picture has a public link) or the error that kept it
// from being drawn, and the buttons "View in hedgerow" and "Manage Subscription".
import type { Message } from '../message.js';

export function slackBody(m: Message): Record<string, unknown> {
  const title = `Your subscription to the ${m.resource.type} *${m.resource.name}* is ready! 🎉`;
  const blocks: Record<string, unknown>[] = [{ type: 'section', text: { type: 'mrkdwn', text: title } }];
  m.items.forEach((item) => {
    const url = item.url;
    if (item.png && url) blocks.push({ type: 'image', image_url: url, alt_text: item.name, title: { type: 'plain_text', text: item.name.slice(0, 2000) } });
    else blocks.push({ type: 'section', text: { type: 'mrkdwn', text: `*${item.name}*${item.error ? `\n_${item.error}_` : ''}` } });
  });
  blocks.push({ type: 'divider' }, {
    type: 'actions',
    elements: [
      { type: 'button', text: { type: 'plain_text', text: 'View in hedgerow' }, url: m.links.resource },
      { type: 'button', text: { type: 'plain_text', text: 'Manage Subscription' }, url: m.links.subscription },
    ],
  });
  return { text: title, blocks };
}
