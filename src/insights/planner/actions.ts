// An action's steps as one SQL condition on the events scan (`e`): an event matches the
// action when it matches any step, and a step when it matches every condition the step sets
// (src/actions/), as PostHog's action matching and hedgerow's hog function filters read them:
// the event name; the page URL ($current_url: contains — a LIKE pattern, so % and _ are
// wildcards, as PostHog's —, exact or regex); for $autocapture, the element chain's tag, link
// and texts; and property filters. CSS selectors are refused, as in hog function filters.
import { compileSafeRegex } from '../../matching/index.js';
import type { ActionStepRecord } from '../../actions/index.js';
import { QueryError } from './errors.js';
import { propertiesSql, propertyText, usesPersons, type Properties, type PropertyContext } from './properties.js';
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

/** Whether an action's steps read the event's person (its person properties or cohorts). */
export function actionUsesPersons(action: ResolvedAction): boolean {
  return actionPropertyLists(action).some((p) => usesPersons(p));
}

// HogQL's string escapes, as its parser reads them ('' is a quote too).
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', r: '\r', n: '\n', t: '\t', '0': '\0', a: '\x07', v: '\v' };
const unescape = (s: string) => s.replace(/''|\\(.)/gs, (_, c: string | undefined) => (c === undefined ? "'" : ESCAPES[c] ?? c));
const GAP = String.raw`(?:\s|--[^\n]*(?:\n|$)|/\*[\s\S]*?\*/)*`;
const CALLS = new RegExp(String.raw`\bmatchesAction${GAP}\(${GAP}(?:(\d+)|'((?:[^'\\]|\\[\s\S]|'')*)')`, 'g');

/**
 * The ids and names the matchesAction calls of a HogQL text name (the API resolves those
 * actions before the query travels to where it is parsed and compiled). Read from the text,
 * not the tree, so it may find more than the parser will (a call inside a comment or a
 * string): the compiler is the judge, and refuses a call whose action was not resolved.
 */
export function matchesActionReferences(source: string): (number | string)[] {
  if (!source.includes('matchesAction')) return [];
  const out: (number | string)[] = [];
  for (const m of source.matchAll(CALLS)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else out.push(unescape(m[2]), m[2]);
  }
  return out;
}

/** The resolved action a matchesAction argument names: by id (a number), else by name (the oldest of that name). */
export function actionByReference(actions: ReadonlyMap<number, ResolvedAction>, ref: number | string): ResolvedAction | undefined {
  if (typeof ref === 'number') return actions.get(ref);
  let found: ResolvedAction | undefined;
  for (const a of actions.values()) if (a.name === ref && (found === undefined || a.id < found.id)) found = a;
  return found;
}
