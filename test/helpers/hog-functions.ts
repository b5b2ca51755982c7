// The hog function the delivery tests make: PostHog's webhook template, posting
// {"n": <the event's property n>} to `sinkUrl`/deliver for every `order` event.
export function orderWebhook(sinkUrl: string) {
  return {
    template_id: 'template-webhook', enabled: true,
    inputs: { url: { value: `${sinkUrl}/deliver` }, body: { value: { n: '{event.properties.n}' } } },
    filters: { events: [{ id: 'order', type: 'events' }] },
  };
}
