// Paths around a funnel's step (funnelPathsFilter) as HogQL: the source funnel's CTEs as its
// own text writes them (ending with each person's path, `first_paths`), the persons at the
// step (funnelStep k > 0: reached step k; -k: reached step k - 1 and not k) with the time of
// their target step, and which of their events the paths read: at or after it (after a
// drop-off, once the conversion window has passed), at or before it, or between the step
// before it and it; as planner/paths.ts restricts them. Pure.
import { funnelPathCtes, type FunnelText } from './hogql-text.js';

export interface FunnelPathsText {
  funnel: FunnelText;
  /** funnelStep as given (k or -k). */
  step: number;
  type: 'funnel_path_after_step' | 'funnel_path_before_step' | 'funnel_path_between_steps';
}

/** The CTEs to put first, and the condition on an event (joined to `funnel_actors` as fa) that the paths read. */
export function funnelPathsRestriction(s: FunnelPathsText): { ctes: string[]; where: string } {
  const k = s.step;
  const target = k > 0 ? k - 1 : -k - 2;
  const between = s.type === 'funnel_path_between_steps';
  const reached = k > 0 ? `steps >= ${k}` : `steps = ${-k - 1}`;
  const actors = `funnel_actors AS (SELECT pid AS fpid, t${target} AS tt${between ? `, t${target - 1} AS tp` : ''} FROM first_paths WHERE ${reached})`;
  const where = between ? 'timestamp >= fa.tp AND timestamp <= fa.tt'
    : s.type === 'funnel_path_before_step' ? 'timestamp <= fa.tt'
      : k < 0 ? `timestamp >= fa.tt + toIntervalSecond(${s.funnel.windowSeconds})` : 'timestamp >= fa.tt';
  return { ctes: [...funnelPathCtes(s.funnel), actors], where };
}
