// funnelsFilter.exclusions, checked as PostHog checks them: the range must run forwards
// within the funnel, an unordered funnel takes only exclusions over all of it, and an
// exclusion may not match what a step in its range matches (every such step event would
// disqualify its own try). How a try is disqualified is funnels.ts's (excludedSql).
import type { FunnelExclusion, FunnelsQuery, SeriesNode } from '../schemas.js';
import { QueryError } from './errors.js';

export interface Exclusion {
  node: SeriesNode;
  from: number;
  to: number;
  attr: string;
}

function nodeOf(x: FunnelExclusion, attr: string): SeriesNode {
  const props = { properties: x.properties ?? null, fixedProperties: x.fixedProperties ?? null };
  if (x.kind === 'ActionsNode') {
    if (x.id === null || x.id === undefined) throw new QueryError('An ActionsNode exclusion needs the action\'s id', `${attr}.id`);
    return { kind: 'ActionsNode', id: x.id, ...props } as SeriesNode;
  }
  return { kind: 'EventsNode', event: x.event ?? null, ...props } as SeriesNode;
}

const filtersOf = (n: SeriesNode) => [n.properties, n.fixedProperties].filter((p) => p !== null && p !== undefined && !(Array.isArray(p) && p.length === 0));

/** Whether every event the exclusion matches is also one of the step's (same event or action, the step no narrower). */
function covers(step: SeriesNode, exclusion: SeriesNode): boolean {
  const same = step.kind === 'ActionsNode' ? exclusion.kind === 'ActionsNode' && String(step.id) === String(exclusion.id)
    : exclusion.kind !== 'ActionsNode' && (step.event ?? null) === (exclusion.event ?? null);
  if (!same) return false;
  const stepFilters = filtersOf(step);
  return stepFilters.length === 0 || JSON.stringify(stepFilters) === JSON.stringify(filtersOf(exclusion));
}

export function funnelExclusions(query: FunnelsQuery, order: string): Exclusion[] {
  const steps = query.series.length;
  return (query.funnelsFilter?.exclusions ?? []).map((x, i) => {
    const attr = `funnelsFilter.exclusions.${i}`;
    const from = x.funnelFromStep;
    const to = x.funnelToStep;
    if (from >= to) throw new QueryError('Exclusion event range is invalid. End of range should be greater than start.', `${attr}.funnelToStep`);
    if (to > steps - 1) throw new QueryError('Exclusion event range is invalid. Start of range is greater than number of steps.', `${attr}.funnelToStep`);
    if (order === 'unordered' && (from !== 0 || to !== steps - 1)) throw new QueryError('Partial Exclusions not allowed in unordered funnels', `${attr}.funnelFromStep`);
    const node = nodeOf(x, attr);
    if (query.series.slice(from, to + 1).some((step) => covers(step, node))) {
      throw new QueryError('Exclusion steps cannot contain an event that\'s part of funnel steps.', attr);
    }
    return { node, from, to, attr };
  });
}
