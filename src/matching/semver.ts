// Semantic versions and version requirements the way PostHog's Rust evaluator reads them:
// a leading "v" is dropped, leading zeros in the numeric core are stripped and a missing
// minor or patch is padded with 0 ("3.08" → 3.8.0), then strict SemVer 2.0 parsing;
// requirements follow the Cargo `semver` crate (=, >, >=, <, <=, ~, ^, wildcards).
import { boundedMemo } from './bounded-memo.js';

export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly pre: readonly string[];
  readonly build: readonly string[];
}

export type SemverComparison = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte';

const NUMERIC = /^\d+$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

function normalize(text: string): string {
  return (text.startsWith('v') ? text.slice(1) : text).trim();
}

function stripLeadingZeros(part: string): string {
  if (part === '' || !NUMERIC.test(part)) return part;
  const trimmed = part.replace(/^0+/, '');
  return trimmed === '' ? '0' : trimmed;
}

function canonicalize(text: string): string {
  const cut = text.search(/[-+]/);
  const core = cut === -1 ? text : text.slice(0, cut);
  const suffix = cut === -1 ? '' : text.slice(cut);
  const parts = core.split('.').map(stripLeadingZeros);
  while (parts.length < 3) parts.push('0');
  return parts.join('.') + suffix;
}

function parseNumber(part: string): number | undefined {
  if (!NUMERIC.test(part) || (part.length > 1 && part[0] === '0')) return undefined;
  const n = Number(part);
  return Number.isSafeInteger(n) ? n : undefined;
}

function parseIdentifiers(text: string, rejectLeadingZeros: boolean): string[] | undefined {
  const ids = text.split('.');
  for (const id of ids) {
    if (!IDENTIFIER.test(id)) return undefined;
    if (rejectLeadingZeros && NUMERIC.test(id) && id.length > 1 && id[0] === '0') return undefined;
  }
  return ids;
}

function parseStrict(text: string): Version | undefined {
  const plus = text.indexOf('+');
  const withoutBuild = plus === -1 ? text : text.slice(0, plus);
  const dash = withoutBuild.indexOf('-');
  const core = dash === -1 ? withoutBuild : withoutBuild.slice(0, dash);
  const parts = core.split('.');
  if (parts.length !== 3) return undefined;
  const [major, minor, patch] = parts.map(parseNumber);
  if (major === undefined || minor === undefined || patch === undefined) return undefined;
  const pre = dash === -1 ? [] : parseIdentifiers(withoutBuild.slice(dash + 1), true);
  const build = plus === -1 ? [] : parseIdentifiers(text.slice(plus + 1), false);
  if (pre === undefined || build === undefined) return undefined;
  return { major, minor, patch, pre, build };
}

/** A person's or a filter's version string, or undefined when it is not a version. */
export const parseVersion = boundedMemo(4096, (text: string): Version | undefined => {
  const version = parseStrict(canonicalize(normalize(text)));
  if (version !== undefined) Object.freeze(version);
  return version;
});

function compareNumericText(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, '');
  const y = b.replace(/^0+(?=\d)/, '');
  if (x.length !== y.length) return x.length - y.length;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareIdentifiers(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i];
    const y = b[i];
    const xNum = NUMERIC.test(x);
    const yNum = NUMERIC.test(y);
    let c: number;
    if (xNum && yNum) c = compareNumericText(x, y) || x.length - y.length;
    else if (xNum) c = -1;
    else if (yNum) c = 1;
    else c = x < y ? -1 : x > y ? 1 : 0;
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/** Pre-release order: no pre-release ranks above any pre-release. */
function comparePre(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 || b.length === 0) return b.length - a.length;
  return compareIdentifiers(a, b);
}

/** Total order of the `semver` crate, build metadata included as the last tie-breaker. */
export function compareVersions(a: Version, b: Version): number {
  return (
    a.major - b.major ||
    a.minor - b.minor ||
    a.patch - b.patch ||
    Math.sign(comparePre(a.pre, b.pre)) ||
    Math.sign(compareIdentifiers(a.build, b.build))
  );
}

export function compareWith(op: SemverComparison, a: Version, b: Version): boolean {
  const c = compareVersions(a, b);
  switch (op) {
    case 'eq': return c === 0;
    case 'neq': return c !== 0;
    case 'gt': return c > 0;
    case 'gte': return c >= 0;
    case 'lt': return c < 0;
    case 'lte': return c <= 0;
  }
}

type Op = '=' | '>' | '>=' | '<' | '<=' | '~' | '^' | '*';

interface Comparator {
  readonly op: Op;
  readonly major: number;
  readonly minor: number | undefined;
  readonly patch: number | undefined;
  readonly pre: readonly string[];
}

/** Comparators that must all hold; an empty list is `*`. */
export type Requirement = readonly Comparator[];

const COMPARATOR = /^(=|>=|>|<=|<|~|\^)?\s*(.*)$/;
const WILDCARD = /^[*xX]$/;

function parseComparator(text: string): Comparator | null | undefined {
  const m = COMPARATOR.exec(text.trim());
  if (!m) return undefined;
  const explicitOp = m[1] as Op | undefined;
  const rest = m[2];
  const dash = rest.indexOf('-');
  const core = dash === -1 ? rest : rest.slice(0, dash);
  const parts = core.split('.');
  if (parts.length > 3 || rest.includes('+')) return undefined;
  const numbers: (number | undefined)[] = [];
  let sawWildcard = false;
  for (const part of parts) {
    if (WILDCARD.test(part)) {
      sawWildcard = true;
      numbers.push(undefined);
      continue;
    }
    if (sawWildcard) return undefined;
    const n = parseNumber(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  const [major, minor, patch] = numbers;
  if (major === undefined) return explicitOp === undefined || explicitOp === '=' ? null : undefined;
  let pre: string[] = [];
  if (dash !== -1) {
    if (patch === undefined) return undefined;
    const parsed = parseIdentifiers(rest.slice(dash + 1), true);
    if (parsed === undefined) return undefined;
    pre = parsed;
  }
  const op: Op = explicitOp ?? (sawWildcard ? '*' : '^');
  return { op, major, minor, patch, pre };
}

/** A requirement such as "~1.2.3", "^0.4", "1.2.*" or ">=1, <2"; undefined when invalid. */
export function parseRequirement(text: string): Requirement | undefined {
  if (text.trim() === '') return undefined;
  const out: Comparator[] = [];
  for (const piece of text.split(',')) {
    const c = parseComparator(piece);
    if (c === undefined) return undefined;
    if (c !== null) out.push(c);
  }
  return out;
}

function matchesWildcard(c: Comparator, v: Version): boolean {
  if (v.major !== c.major) return false;
  if (c.minor !== undefined && v.minor !== c.minor) return false;
  return c.patch === undefined || v.patch === c.patch;
}

function matchesExact(c: Comparator, v: Version): boolean {
  return matchesWildcard(c, v) && compareIdentifiers(v.pre, c.pre) === 0;
}

function matchesGreater(c: Comparator, v: Version): boolean {
  if (v.major !== c.major) return v.major > c.major;
  if (c.minor === undefined) return false;
  if (v.minor !== c.minor) return v.minor > c.minor;
  if (c.patch === undefined) return false;
  if (v.patch !== c.patch) return v.patch > c.patch;
  return comparePre(v.pre, c.pre) > 0;
}

function matchesLess(c: Comparator, v: Version): boolean {
  if (v.major !== c.major) return v.major < c.major;
  if (c.minor === undefined) return false;
  if (v.minor !== c.minor) return v.minor < c.minor;
  if (c.patch === undefined) return false;
  if (v.patch !== c.patch) return v.patch < c.patch;
  return comparePre(v.pre, c.pre) < 0;
}

function matchesTilde(c: Comparator, v: Version): boolean {
  if (v.major !== c.major) return false;
  if (c.minor !== undefined && v.minor !== c.minor) return false;
  if (c.patch !== undefined && v.patch !== c.patch) return v.patch > c.patch;
  return comparePre(v.pre, c.pre) >= 0;
}

function matchesCaret(c: Comparator, v: Version): boolean {
  if (v.major !== c.major) return false;
  if (c.minor === undefined) return true;
  if (c.patch === undefined) return c.major > 0 ? v.minor >= c.minor : v.minor === c.minor;
  if (c.major > 0) {
    if (v.minor !== c.minor) return v.minor > c.minor;
    if (v.patch !== c.patch) return v.patch > c.patch;
  } else if (c.minor > 0) {
    if (v.minor !== c.minor) return false;
    if (v.patch !== c.patch) return v.patch > c.patch;
  } else if (v.minor !== c.minor || v.patch !== c.patch) {
    return false;
  }
  return comparePre(v.pre, c.pre) >= 0;
}

function matchesComparator(c: Comparator, v: Version): boolean {
  switch (c.op) {
    case '=': return matchesExact(c, v);
    case '>': return matchesGreater(c, v);
    case '>=': return matchesExact(c, v) || matchesGreater(c, v);
    case '<': return matchesLess(c, v);
    case '<=': return matchesExact(c, v) || matchesLess(c, v);
    case '~': return matchesTilde(c, v);
    case '^': return matchesCaret(c, v);
    case '*': return matchesWildcard(c, v);
  }
}

/** A pre-release version only satisfies a requirement that names that very version's core with a pre-release. */
export function satisfies(requirement: Requirement, v: Version): boolean {
  for (const c of requirement) if (!matchesComparator(c, v)) return false;
  if (v.pre.length === 0) return true;
  return requirement.some(
    (c) => c.major === v.major && c.minor === v.minor && c.patch === v.patch && c.pre.length > 0,
  );
}

/** The requirement PostHog builds for semver_tilde, semver_caret and semver_wildcard. */
export function requirementFor(operator: 'semver_tilde' | 'semver_caret' | 'semver_wildcard', text: string): Requirement | undefined {
  const normalized = normalize(text);
  if (operator === 'semver_tilde') return parseRequirement('~' + canonicalize(normalized));
  if (operator === 'semver_caret') return parseRequirement('^' + canonicalize(normalized));
  return parseRequirement(normalized.split('.').map(stripLeadingZeros).join('.').replace(/\*/g, 'x'));
}
