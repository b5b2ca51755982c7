// The HogQL functions the compiler knows, each as its arity and the DuckDB SQL it becomes, one
// file per group. Only these names compile: a DuckDB function (read_csv, getenv,
// current_setting, …) is not reachable by calling it, since a call's name is looked up here
// and never printed. Every DuckDB name in the groups is their own text; arguments arrive
// compiled (values bound). Semantics follow ClickHouse's as PostHog exposes them (docs:
// /work/shared/reference/hogql.md §4-5): 1-based strings and arrays, text properties read as
// numbers by numeric functions, calendar functions on the project's wall clock, NULLs skipped
// by groupArray.
import type { Catalogue, FunctionGroup, FunctionSpec } from './catalogue.js';
import { aggregates } from './aggregates.js';
import { arrayLambdas } from './array-lambdas.js';
import { arrays } from './arrays.js';
import { calendar } from './calendar.js';
import { conditionals } from './conditionals.js';
import { conversions } from './conversions.js';
import { dateArithmetic } from './date-arithmetic.js';
import { dateFormats } from './date-formats.js';
import { dates } from './dates.js';
import { encoding } from './encoding.js';
import { ipAddresses } from './ip.js';
import { json } from './json.js';
import { maths } from './maths.js';
import { posthog } from './posthog.js';
import { statistics } from './statistics.js';
import { stringSearch } from './string-search.js';
import { strings } from './strings.js';
import { urls } from './urls.js';
import { vectors } from './vectors.js';
import { windowFunctions } from './window.js';

export type { Fx, FunctionGroup, FunctionSpec } from './catalogue.js';
export { MAX_BUILT } from './helpers.js';

// Each name in one group only: a second definition elsewhere would silently replace the first.
const FUNCTIONS: Catalogue = new Map();
for (const group of [conditionals, conversions, dates, calendar, dateArithmetic, dateFormats, strings, stringSearch, urls, encoding, json, arrays, arrayLambdas, vectors, maths, aggregates, statistics, windowFunctions, ipAddresses, posthog]) {
  for (const [name, spec] of group) {
    if (FUNCTIONS.has(name)) throw new Error(`HogQL function ${name} is defined in two groups`);
    FUNCTIONS.set(name, spec);
  }
}

// ClickHouse's case-insensitive names (PostHog looks these up lowercased too).
const CASE_INSENSITIVE = new Set(['count', 'sum', 'avg', 'min', 'max', 'if', 'not', 'coalesce', 'ifnull', 'nullif', 'isnull', 'lower', 'upper', 'length', 'concat', 'substring', 'trim', 'now', 'round', 'floor', 'abs', 'sortablesemver',
  'exp', 'log', 'ln', 'log2', 'log10', 'sqrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'pow', 'power', 'sign', 'degrees', 'radians', 'factorial', 'ceil', 'trunc',
  'ascii', 'position', 'extract', 'replace', 'btrim', 'reverse', 'least', 'greatest', 'max2', 'min2']);

/** The catalogue entry of `name` (ClickHouse's case-insensitive names also lowercased). */
export function lookupFunction(name: string): FunctionSpec | undefined {
  const exact = FUNCTIONS.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  if (!CASE_INSENSITIVE.has(lower)) return undefined;
  for (const [known, spec] of FUNCTIONS) if (known.toLowerCase() === lower) return spec;
  return undefined;
}

/** Every supported name by group, for the README's table. Internal names (`_…`) are left out. */
export function supportedFunctions(): Map<FunctionGroup, string[]> {
  const out = new Map<FunctionGroup, string[]>();
  for (const [name, spec] of FUNCTIONS) {
    if (name.startsWith('_')) continue;
    const names = out.get(spec.group) ?? [];
    names.push(name);
    out.set(spec.group, names);
  }
  for (const names of out.values()) names.sort((a, b) => a.localeCompare(b));
  return out;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

/** The closest known name, when one is close enough to be a likely typo. */
export function closestFunction(name: string): string | null {
  let best: string | null = null;
  let bestDistance = Infinity;
  const lower = name.toLowerCase();
  for (const known of FUNCTIONS.keys()) {
    if (known.startsWith('_')) continue;
    const d = distance(lower, known.toLowerCase());
    if (d < bestDistance) {
      best = known;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : null;
}
