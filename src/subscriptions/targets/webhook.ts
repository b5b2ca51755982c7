// A webhook delivery (beyond PostHog, whose subscriptions no longer deliver to webhooks):
// one JSON POST with the message, its links and every picture as base64.
import { pngFilename, type Message } from '../message.js';

export function webhookBody(m: Message): Record<string, unknown> {
  return {
    subscription: m.subscription, resource: m.resource, subject: m.subject, text: m.greeting, links: m.links, delivered_at: m.deliveredAt,
    assets: m.items.map((item, i) => ({
      insight_id: item.insight_id, name: item.name,
      ...(item.png
        ? { content_type: 'image/png', filename: pngFilename(item, i), url: item.url, content_base64: Buffer.from(item.png).toString('base64') }
        : { error: item.error }),
    })),
  };
}
