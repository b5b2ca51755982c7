// Which events a query's series, filters and breakdowns take, as PostHog's rules state them:
// property operators (a negative operator keeps events without the property), person,
// group, cohort and HogQL filters, actions (any step matches), test-account filters.
import type { ModelEvent, World } from './world.js';

export interface Filter {
  key: string;
  value?: unknown;
  operator?: string;
  type: 'event' | 'person' | 'group' | 'cohort' | 'hogql';
  group_type_index?: number;
}

export interface ActionStep {
  event?: string;
  url?: string;
  url_matching?: 'contains' | 'exact' | 'regex';
  properties?: Filter[];
}

/** The model's reading of the few HogQL expressions the corpus uses: the rule each one states. */
export type HogqlTable = Record<string, (e: ModelEvent, w: World) => unknown>;

export interface Context {
  world: World;
  tz: string;
  cohorts: Map<number, Set<number>>;
  actions: Map<number, ActionStep[]>;
  testFilters: Filter[];
  hogql: HogqlTable;
  /** HogQL math expressions: the rule each states over an interval's events. */
  hogqlMath: Record<string, (events: ModelEvent[]) => number>;
}

export interface SeriesNode {
  kind?: 'EventsNode' | 'ActionsNode';
  event?: string | null;
  id?: number;
  math?: string;
  math_property?: string;
  math_hogql?: string;
  math_group_type_index?: number;
  properties?: Filter[];
}

const isSet = (v: unknown) => v !== undefined && v !== null;

function compare(actual: unknown, operator: string, value: unknown): boolean {
  const values = Array.isArray(value) ? value : [value];
  const text = isSet(actual) ? String(actual) : null;
  switch (operator) {
    case 'exact': return text !== null && values.some((v) => String(v) === text);
    case 'is_not': return text === null || !values.some((v) => String(v) === text);
    case 'icontains': return text !== null && text.toLowerCase().includes(String(value).toLowerCase());
    case 'not_icontains': return text === null || !text.toLowerCase().includes(String(value).toLowerCase());
    case 'regex': return text !== null && new RegExp(String(value)).test(text);
    case 'not_regex': return text === null || !new RegExp(String(value)).test(text);
    case 'gt': return text !== null && Number(text) > Number(value);
    case 'gte': return text !== null && Number(text) >= Number(value);
    case 'lt': return text !== null && Number(text) < Number(value);
    case 'lte': return text !== null && Number(text) <= Number(value);
    case 'is_set': return text !== null;
    case 'is_not_set': return text === null;
    default: throw new Error(`the model has no operator ${operator}`);
  }
}

export function personProps(e: ModelEvent, c: Context): Record<string, unknown> {
  return c.world.persons.get(e.person)!.props;
}

export function groupProps(e: ModelEvent, c: Context, index: number): Record<string, unknown> | undefined {
  const key = e.props[`$group_${index}`];
  return typeof key === 'string' ? c.world.groups.get(key) : undefined;
}

export function matchesFilter(e: ModelEvent, f: Filter, c: Context): boolean {
  const operator = f.operator ?? 'exact';
  switch (f.type) {
    case 'event': return compare(e.props[f.key], operator, f.value);
    case 'person': return compare(personProps(e, c)[f.key], operator, f.value);
    case 'group': return compare(groupProps(e, c, f.group_type_index ?? 0)?.[f.key], operator, f.value);
    case 'cohort': {
      const inside = c.cohorts.get(Number(f.value))!.has(e.person);
      return operator === 'not_in' ? !inside : inside;
    }
    case 'hogql': return Boolean(c.hogql[f.key](e, c.world));
  }
}

export const matchesAll = (e: ModelEvent, filters: Filter[] | undefined, c: Context) => (filters ?? []).every((f) => matchesFilter(e, f, c));

function matchesUrl(url: unknown, step: ActionStep): boolean {
  if (step.url === undefined) return true;
  if (typeof url !== 'string') return false;
  if (step.url_matching === 'exact') return url === step.url;
  if (step.url_matching === 'regex') return new RegExp(step.url).test(url);
  return url.includes(step.url);
}

export function matchesAction(e: ModelEvent, id: number, c: Context): boolean {
  return c.actions.get(id)!.some((step) => (step.event === undefined || step.event === e.event) && matchesUrl(e.props.$current_url, step) && matchesAll(e, step.properties, c));
}

/** The series' event (or action), its own filters, the query's and the test-account filters. */
export function seriesEvents(node: SeriesNode, query: { properties?: Filter[]; filterTestAccounts?: boolean }, c: Context, events = c.world.events): ModelEvent[] {
  return events.filter((e) =>
    (node.kind === 'ActionsNode' ? matchesAction(e, node.id!, c) : node.event === null || node.event === undefined || e.event === node.event) &&
    matchesAll(e, node.properties, c) && matchesAll(e, query.properties, c) && (!query.filterTestAccounts || matchesAll(e, c.testFilters, c)));
}

export const NULL_VALUE = '$$_posthog_breakdown_null_$$';

export interface Breakdown {
  property: string;
  type: 'event' | 'person' | 'group' | 'cohort' | 'hogql' | 'session';
  group_type_index?: number;
  /** A cohort breakdown's cohorts. */
  ids?: number[];
}

/** An event's values for one breakdown: one value, or for cohorts the ids of those its person is in. */
export function breakdownValues(e: ModelEvent, b: Breakdown, c: Context): Array<string | number> {
  const text = (v: unknown) => (isSet(v) && v !== '' ? String(v) : NULL_VALUE);
  switch (b.type) {
    case 'event': return [text(e.props[b.property])];
    case 'person': return [text(personProps(e, c)[b.property])];
    case 'group': return [text(groupProps(e, c, b.group_type_index ?? 0)?.[b.property])];
    case 'hogql': return [text(c.hogql[b.property](e, c.world))];
    case 'cohort': return b.ids!.filter((id) => c.cohorts.get(id)!.has(e.person));
    case 'session': {
      if (b.property !== '$session_duration') throw new Error(`the model reads $session_duration, not ${b.property}`);
      const id = e.props.$session_id;
      return [typeof id === 'string' ? String(sessionDurations(c.world).get(id)) : NULL_VALUE];
    }
  }
}

const durations = new WeakMap<World, Map<string, number>>();

/** Each session's duration: whole seconds from its first event to its last, all of its events. */
function sessionDurations(w: World): Map<string, number> {
  let found = durations.get(w);
  if (!found) {
    const span = new Map<string, [number, number]>();
    for (const e of w.events) {
      const id = e.props.$session_id;
      if (typeof id !== 'string') continue;
      const [lo, hi] = span.get(id) ?? [e.ts, e.ts];
      span.set(id, [Math.min(lo, e.ts), Math.max(hi, e.ts)]);
    }
    found = new Map([...span].map(([id, [lo, hi]]) => [id, Math.round((hi - lo) / 1000)]));
    durations.set(w, found);
  }
  return found;
}
