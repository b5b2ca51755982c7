// PostHog's ActorsQuery: the persons (or groups) behind a number, or persons directly.
//   ActorsQuery { source?, select?, search?, properties?, fixedProperties?, orderBy?, limit?, offset? }
//   source: InsightActorsQuery { source: an insight query, series?, day?, breakdown?, compare?,
//             interval? (retention's cohort row), status? (lifecycle's) }
//        or FunnelsActorsQuery { source: a FunnelsQuery, funnelStep (k: reached step k, -k:
//             dropped off at step k), funnelStepBreakdown? }
// An InsightActorsQuery or FunnelsActorsQuery posted on its own is read as the ActorsQuery
// around it. Fields PostHog has that hedgerow does not honour are refused naming them.
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { lazyChecks } from './lazy-checks.js';
import { QueryError, within } from './planner/errors.js';

const Nullable = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));
const Properties = Nullable(Type.Union([Type.Array(Type.Any()), Type.Object({}, { additionalProperties: true })]));
const BreakdownCell = Nullable(Type.Union([Type.String(), Type.Number(), Type.Array(Type.Union([Type.String(), Type.Number()]))]));

export const ACTORS_MAX_LIMIT = 10_000;

const ActorsQuerySchema = Type.Object({
  kind: Type.Literal('ActorsQuery'),
  source: Nullable(Type.Object({ kind: Type.String() }, { additionalProperties: true })),
  select: Nullable(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 50 })),
  search: Nullable(Type.String()),
  properties: Properties,
  fixedProperties: Properties,
  orderBy: Nullable(Type.Array(Type.String({ minLength: 1 }), { maxItems: 10 })),
  limit: Nullable(Type.Integer({ minimum: 1, maximum: ACTORS_MAX_LIMIT })),
  offset: Nullable(Type.Integer({ minimum: 0 })),
});

const InsightActorsSchema = Type.Object({
  kind: Type.Literal('InsightActorsQuery'),
  source: Type.Object({ kind: Type.String() }, { additionalProperties: true }),
  series: Nullable(Type.Integer({ minimum: 0 })),
  day: Nullable(Type.Union([Type.String({ minLength: 1 }), Type.Integer({ minimum: 1 })])),
  breakdown: BreakdownCell,
  compare: Nullable(Type.Union([Type.Literal('current'), Type.Literal('previous')])),
  interval: Nullable(Type.Integer({ minimum: 0 })),
  status: Nullable(Type.Union([Type.Literal('new'), Type.Literal('returning'), Type.Literal('resurrecting'), Type.Literal('dormant')])),
  // A funnel's step, as a FunnelsActorsQuery names it (its source must then be a FunnelsQuery).
  funnelStep: Nullable(Type.Integer()),
  funnelStepBreakdown: BreakdownCell,
});

const FunnelsActorsSchema = Type.Object({
  kind: Type.Literal('FunnelsActorsQuery'),
  source: Type.Object({ kind: Type.String() }, { additionalProperties: true }),
  funnelStep: Nullable(Type.Integer()),
  funnelStepBreakdown: BreakdownCell,
  // The trends view's point: the entrance period (its start, local time) and whether its
  // converted persons (false) or those who dropped off (true) are listed.
  funnelTrendsDropOff: Nullable(Type.Boolean()),
  funnelTrendsEntrancePeriodStart: Nullable(Type.String({ minLength: 1 })),
});

// Accepted and without effect on the rows: how PostHog's client tags or draws a query.
// includeRecordings: hedgerow stores no recordings, so matched_recordings is always empty.
const PRESENTATION = new Set(['version', 'tags', 'response', 'modifiers', 'includeRecordings']);
// PostHog's fields hedgerow does not compute: refused unless absent or null.
const REFUSED: Record<string, readonly string[]> = {
  ActorsQuery: [],
  InsightActorsQuery: ['breakdowns'],
  FunnelsActorsQuery: ['funnelCustomSteps'],
};

const INSIGHT_KINDS = new Set(['TrendsQuery', 'FunnelsQuery', 'RetentionQuery', 'LifecycleQuery', 'StickinessQuery', 'PathsQuery']);

// Generic in the insight queries a source holds (Insight: any of INSIGHT_KINDS, Funnels: a
// FunnelsQuery), which schemas.ts defines and instantiates these with: this file, which
// schemas.ts reads, reads nothing of it.
export type InsightActorsSourceOf<Insight, Funnels> =
  | (Omit<Static<typeof InsightActorsSchema>, 'source'> & { source: Insight })
  | (Omit<Static<typeof FunnelsActorsSchema>, 'source'> & { source: Funnels });

export type ActorsQueryOf<Insight, Funnels> = Omit<Static<typeof ActorsQuerySchema>, 'source'> & { source?: InsightActorsSourceOf<Insight, Funnels> | null };

const checkOf = lazyChecks(new Map<string, TSchema>([
  ['ActorsQuery', ActorsQuerySchema],
  ['InsightActorsQuery', InsightActorsSchema],
  ['FunnelsActorsQuery', FunnelsActorsSchema],
]));

const KNOWN: Record<string, Set<string>> = {
  ActorsQuery: new Set(Object.keys(ActorsQuerySchema.properties)),
  InsightActorsQuery: new Set(Object.keys(InsightActorsSchema.properties)),
  FunnelsActorsQuery: new Set(Object.keys(FunnelsActorsSchema.properties)),
};

export const isActorsKind = (kind: unknown): boolean => kind === 'ActorsQuery' || kind === 'InsightActorsQuery' || kind === 'FunnelsActorsQuery';

// `prefix` + a field of this node: what a 400 names.
function checked(node: Record<string, unknown>, kind: string, prefix: string): void {
  for (const [key, value] of Object.entries(node)) {
    if (KNOWN[kind].has(key) || PRESENTATION.has(key)) continue;
    if (REFUSED[kind].includes(key) && (value === null || value === undefined)) continue;
    throw new QueryError(REFUSED[kind].includes(key) ? `${key} is not supported by hedgerow in ${kind}` : `Unknown field ${key} in ${kind}`, `${prefix}${key}`);
  }
  const check = checkOf(kind)!;
  if (!check.Check(node)) {
    const first = check.Errors(node).First();
    const attr = first ? first.path.replace(/^\//, '').replace(/\//g, '.') : '';
    throw new QueryError(first ? `${first.message}${attr ? ` at ${prefix}${attr}` : ''}` : `Invalid ${kind}`, attr ? `${prefix}${attr}` : null);
  }
}

// A paths chart's persons are named by its pathsFilter's keys (the step an edge leaves, the
// step it reaches, the step a path ends at), which a PathsQuery of its own refuses as they
// change none of its edges: taken out before the PathsQuery is parsed, put back after.
const PATH_KEYS = ['pathStartKey', 'pathEndKey', 'pathDropoffKey'];

function pathKeys(inner: Record<string, unknown>): { keys: Record<string, string>; rest: Record<string, unknown> } | null {
  const filter = inner.pathsFilter;
  if (inner.kind !== 'PathsQuery' || typeof filter !== 'object' || filter === null || Array.isArray(filter)) return null;
  const keys: Record<string, string> = {};
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (!PATH_KEYS.includes(key)) rest[key] = value;
    else if (typeof value === 'string') keys[key] = value;
    else if (value !== null && value !== undefined) throw new QueryError(`${key} must be a path step's key ("n_item")`, `source.source.pathsFilter.${key}`);
  }
  return { keys, rest };
}

/**
 * An ActorsQuery (or an insight actors query on its own, read as the ActorsQuery around it),
 * its insight parsed with `parseInsight` (schemas.ts parseQuery); a bad field is a QueryError
 * naming it from the ActorsQuery (e.g. source.source.series.0.math).
 */
export function parseActorsQuery<Insight, Funnels>(node: Record<string, unknown>, parseInsight: (q: unknown) => unknown): ActorsQueryOf<Insight, Funnels> {
  type ActorsQuery = ActorsQueryOf<Insight, Funnels>;
  if (node.kind !== 'ActorsQuery') return parseActorsQuery({ kind: 'ActorsQuery', source: node }, parseInsight);
  checked(node, 'ActorsQuery', '');
  const source = node.source as Record<string, unknown> | null | undefined;
  if (source === null || source === undefined) return node as unknown as ActorsQuery;
  if (source.kind !== 'InsightActorsQuery' && source.kind !== 'FunnelsActorsQuery') {
    throw new QueryError(`ActorsQuery's source must be an InsightActorsQuery or a FunnelsActorsQuery, not ${JSON.stringify(source.kind)}`, 'source.kind');
  }
  checked(source, source.kind, 'source.');
  let inner = source.source as Record<string, unknown>;
  if (inner.kind === 'InsightVizNode' && typeof inner.source === 'object' && inner.source !== null) inner = inner.source as Record<string, unknown>;
  if (!INSIGHT_KINDS.has(String(inner.kind))) {
    throw new QueryError(`An insight actors query's source must be one of ${[...INSIGHT_KINDS].join(', ')}`, 'source.source.kind');
  }
  if (source.kind === 'FunnelsActorsQuery' && inner.kind !== 'FunnelsQuery') throw new QueryError('A FunnelsActorsQuery\'s source must be a FunnelsQuery', 'source.source.kind');
  const keys = pathKeys(inner);
  let parsed: unknown = within('source.source', () => parseInsight(keys === null ? inner : { ...inner, pathsFilter: keys.rest }));
  if (keys !== null) parsed = { ...(parsed as Record<string, unknown>), pathsFilter: { ...(parsed as { pathsFilter?: object | null }).pathsFilter, ...keys.keys } };
  return { ...(node as unknown as ActorsQuery), source: { ...source, source: parsed } as unknown as InsightActorsSourceOf<Insight, Funnels> };
}
