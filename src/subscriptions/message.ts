// What a delivery says, whatever carries it (pure): PostHog's words for the subject and the
// greeting, the resource's and the subscription's links, and one picture per insight (or
// the error that kept it from being drawn).

export interface RenderedItem {
  insight_id: number;
  name: string;
  // The PNG, or null with `error` when it could not be drawn.
  png: Uint8Array | null;
  // Its public link (GET /exporter/<sha256>.png), where it has one.
  url: string | null;
  error: string | null;
}

export interface Message {
  subscription: { id: number; title: string | null; summary: string };
  resource: { type: 'insight' | 'dashboard'; id: number; name: string; url: string };
  subject: string;
  greeting: string;
  links: { resource: string; subscription: string };
  items: RenderedItem[];
  deliveredAt: string;
}

export interface MessageInput {
  siteUrl: string;
  subscription: { id: number; title: string | null; summary: string };
  resource: { type: 'insight' | 'dashboard'; id: number; name: string; shortId: string | null };
  items: RenderedItem[];
  at: Date;
}

export function buildMessage(m: MessageInput): Message {
  const kind = m.resource.type === 'insight' ? 'Insight' : 'Dashboard';
  const url = m.resource.type === 'insight' ? `${m.siteUrl}/insights/${m.resource.shortId ?? m.resource.id}` : `${m.siteUrl}/dashboard/${m.resource.id}`;
  return {
    subscription: m.subscription,
    resource: { type: m.resource.type, id: m.resource.id, name: m.resource.name, url },
    subject: `hedgerow ${kind} report - ${m.resource.name}`,
    greeting: `Your subscription to the ${m.resource.type} ${m.resource.name} is ready!`,
    links: { resource: url, subscription: `${url}/subscriptions/${m.subscription.id}` },
    items: m.items,
    deliveredAt: m.at.toISOString(),
  };
}

export const pngFilename = (item: RenderedItem, i: number) =>
  `${String(i + 1).padStart(2, '0')}-${item.name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'insight'}.png`;
