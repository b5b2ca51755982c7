// The three destinations of the sustained mix (issue 26): a webhook of every event, one
// masked to once per distinct id per 10 minutes, and one whose filter matches ~10% of
// events (pricing pageviews). bench/sustained and bench/destinations-cpu post them.
export function sustainedDestinations(sink: string) {
  return [
    { name: 'every event', inputs: { url: { value: `${sink}/fn-a` }, body: { value: { event: '{event}', person: '{person}' } } } },
    {
      name: 'once per distinct id per 10 minutes', masking: { ttl: 600, threshold: null, hash: '{event.distinct_id}' },
      inputs: { url: { value: `${sink}/fn-b` }, body: { value: { event: '{event.event}', distinct_id: '{event.distinct_id}', url: '{event.properties.$current_url}' } } },
    },
    {
      name: 'pricing pageviews',
      filters: { events: [{ id: '$pageview', name: '$pageview', type: 'events', order: 0, properties: [{ key: '$current_url', value: '/pricing', operator: 'icontains', type: 'event' }] }] },
      inputs: { url: { value: `${sink}/fn-c` }, body: { value: { event: '{event.event}', uuid: '{event.uuid}', url: '{event.properties.$current_url}', person: '{person.id}' } } },
    },
  ];
}
