// An action's steps as one SQL condition on the events scan (`e`): an event matches the
// action when it matches any step, and a step when it matches every condition the step sets
// (src/actions/), as PostHog's action matching and hedgerow's hog function filters read them:
// the event name; the page URL ($current_url: contains — a LIKE pattern, so % and _ are
// wildcards, as PostHog's —, exact or regex); for $autocapture, the element chain's tag, link
// and texts; and property filters. CSS selectors are refused, as in hog function filters.
import { compileSafeRegex } from '../../matching/index.js';
import type { ActionStepRecord } from '../../actions/index.js';
import { QueryError } from './errors.js';
import { propertiesSql, propertyText, type Properties, type PropertyContext } from './properties.js';
import { and, or, raw, sql, text, type Sql } from './sql.js';

/** An action as a query reads it: resolved by the API from the project's actions. */
export interface ResolvedAction {
  id: number;
  name: string | null;
  steps: ActionStepRecord[];
}

const CHAIN = propertyText('event', '$elements_chain');
const HREF = sql`regexp_extract(${CHAIN}, ${text('(?::|")href="(.*?)"')}, 1)`;
const TEXTS = sql`regexp_extract_all(${CHAIN}, ${text('(?::|")text="(.*?)"')}, 1)`;

function regexTest(x: Sql, pattern: string): Sql {
  // A pattern DuckDB's RE2 cannot take matches nothing (as an invalid property regex).
  return compileSafeRegex(pattern) === undefined ? raw('FALSE') : sql`regexp_matches(${x}, ${text(pattern)})`;
}

// text and href: exact unless said (contains is case-insensitive, as hogql's ilike).
function elementTest(kind: string | null, x: Sql, value: string): Sql {
  if (kind === 'regex') return regexTest(x, value);
  if (kind === 'contains') return sql`(${x} ILIKE ${text(`%${value}%`)})`;
  return sql`(${x} = ${text(value)})`;
}

function stepSql(step: ActionStepRecord, ctx: PropertyContext, attr: string): Sql {
  const parts: Sql[] = [];
  if (step.event) parts.push(sql`e.event = ${text(step.event)}`);
  if (step.event === '$autocapture') {
    if (step.selector) throw new QueryError(`CSS selector conditions of actions are not supported by hedgerow (selector: ${step.selector})`, attr);
    if (step.tag_name !== null) parts.push(regexTest(CHAIN, `(^|;)${step.tag_name}(\\.|$|;|:)`));
    if (step.href !== null) parts.push(elementTest(step.href_matching, HREF, step.href));
    if (step.text !== null) {
      const test = elementTest(step.text_matching, raw('t'), step.text);
      parts.push(sql`(len(list_filter(${TEXTS}, lambda t: ${test})) > 0)`);
    }
  }
  if (step.url) {
    const url = propertyText('event', '$current_url');
    if (step.url_matching === 'exact') parts.push(sql`(${url} = ${text(step.url)})`);
    else if (step.url_matching === 'regex') parts.push(regexTest(url, step.url));
    else parts.push(sql`(${url} LIKE ${text(`%${step.url}%`)})`);
  }
  if (step.properties && step.properties.length > 0) parts.push(propertiesSql(step.properties as unknown as Properties, ctx, `${attr}.properties`));
  return and(parts);
}

/** The action's condition (an action without steps matches every event, as PostHog's). */
export function actionSql(action: ResolvedAction, ctx: PropertyContext, attr: string): Sql {
  if (action.steps.length === 0) return raw('TRUE');
  return or(action.steps.map((s, i) => stepSql(s, ctx, `${attr}.steps.${i}`)));
}

/** The property lists of an action's steps (value sets to resolve, persons to join). */
export function actionPropertyLists(action: ResolvedAction): Properties[] {
  return action.steps.map((s) => s.properties as unknown as Properties).filter((p) => p !== null && p !== undefined);
}
