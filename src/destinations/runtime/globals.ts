// The globals a hog function sees, built as PostHog's CDP builds them (reference/hog.md
// §6): the filter globals its filters run on, and the invocation globals its inputs and
// code run on (project, event, person, groups, source, inputs). Pure: the event, its
// person and groups are read by the caller.

// What the pipeline knows about one event when it prepares invocations: plain data, sent
// to a Hog worker.
export interface EventContext {
  project: { id: number; name: string; url: string };
  event: {
    uuid: string;
    event: string;
    distinct_id: string;
    properties: Record<string, unknown>;
    timestamp: string;
    elements_chain: string;
  };
  person: { id: string; properties: Record<string, unknown> } | null;
  // Without a person: whether the invocation globals still name `person` (as null). PostHog's
  // test runs pass the globals they are given through, so a `person` key given as null (or a
  // ClickHouse event without person_id, converted with the key) reads as null in templates,
  // where a missing key is a missing global (an input reading it fails). Events never set it.
  personKeyed?: boolean;
  // Group type → its index, key and properties (only the event's groups).
  groups: Record<string, { index: number; key: string; properties: Record<string, unknown> }>;
}

const NAME_PROPERTIES = ['email', 'Email', 'name', 'Name', 'username', 'Username', 'UserName'];

export function projectUrl(siteUrl: string, projectId: number): string {
  return `${siteUrl.replace(/\/+$/, '')}/project/${projectId}`;
}

function personName(ctx: EventContext): string {
  for (const key of NAME_PROPERTIES) {
    const v = ctx.person?.properties[key];
    if (v !== undefined && v !== null && v !== '') return String(v);
  }
  return ctx.event.distinct_id;
}

function allMatches(text: string, pattern: RegExp): string[] {
  return [...text.matchAll(pattern)].map((m) => m[1]);
}

export function filterGlobals(ctx: EventContext): Record<string, unknown> {
  const { event, person } = ctx;
  const chain = event.elements_chain;
  const globals: Record<string, unknown> = {
    event: event.event,
    uuid: event.uuid,
    timestamp: event.timestamp,
    elements_chain: chain,
    elements_chain_href: /(?::|")href="(.*?)"/.exec(chain)?.[1] ?? '',
    elements_chain_texts: allMatches(chain, /(?::|")text="(.*?)"/g),
    elements_chain_ids: allMatches(chain, /(?::|")attr_id="(.*?)"/g),
    elements_chain_elements: [...new Set(allMatches(chain, /(?:^|;)(a|button|form|input|select|textarea|label)(?:\.|$|:)/g))],
    properties: event.properties,
    person: person ? { id: person.id, properties: person.properties } : null,
    pdi: person ? { distinct_id: event.distinct_id, person_id: person.id, person: { id: person.id, properties: person.properties } } : null,
    distinct_id: event.distinct_id,
  };
  for (const group of Object.values(ctx.groups)) {
    globals[`$group_${group.index}`] = group.key;
    globals[`group_${group.index}`] = { properties: group.properties };
  }
  return globals;
}

// The invocation globals without `inputs` (evaluated from them) and `source`.
export function invocationGlobals(ctx: EventContext): Record<string, unknown> {
  const { project, event, person } = ctx;
  const globals: Record<string, unknown> = {
    project,
    event: {
      ...event,
      url: `${project.url}/events/${encodeURIComponent(event.uuid)}/${encodeURIComponent(event.timestamp)}`,
    },
    groups: Object.fromEntries(Object.entries(ctx.groups).map(([type, g]) => [type, {
      id: g.key, type, index: g.index, url: `${project.url}/groups/${g.index}/${encodeURIComponent(g.key)}`, properties: g.properties,
    }])),
  };
  if (person) {
    globals.person = {
      id: person.id, properties: person.properties, name: personName(ctx),
      url: `${project.url}/person/${encodeURIComponent(event.distinct_id)}`,
    };
  } else if (ctx.personKeyed) {
    globals.person = null;
  }
  return globals;
}

export function sourceOf(projectUrlText: string, fn: { id: string; name: string }): { name: string; url: string } {
  return { name: fn.name || `Hog function: ${fn.id}`, url: `${projectUrlText}/functions/${fn.id}/configuration/` };
}
