// The writable project fields and their validation, as PostHog's serializer checks them.
import { errors } from '../../errors.js';
import { compileSafeRegex } from '../../matching/regex.js';
import type { PathCleaningRule } from '../tenancy/types.js';

export interface ProjectFields {
  name?: string;
  timezone?: string;
  access_control?: boolean;
  week_start_day?: 0 | 1 | null;
  test_account_filters?: unknown[];
  path_cleaning_filters?: PathCleaningRule[];
}

const NAME_MAX = 200;

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

// Each rule a regex (RE2's syntax, as paths apply it) and the alias its matches become; null is none.
function pathCleaningRules(value: unknown): PathCleaningRule[] {
  if (value === null) return [];
  const attr = 'path_cleaning_filters';
  if (!Array.isArray(value)) throw errors.validation('Must be a list of path cleaning rules, each with a regex and an alias.', attr);
  return value.map((rule: unknown) => {
    const r = (typeof rule === 'object' && rule !== null && !Array.isArray(rule) ? rule : {}) as Record<string, unknown>;
    if (typeof r.regex !== 'string' || typeof r.alias !== 'string') throw errors.validation('Must be a list of path cleaning rules, each with a regex and an alias.', attr);
    if (compileSafeRegex(r.regex) === undefined) throw errors.validation(`Invalid regex ${JSON.stringify(r.regex)}.`, attr);
    return { alias: r.alias, regex: r.regex, ...(typeof r.order === 'number' ? { order: r.order } : {}) };
  });
}

export function parseProjectFields(body: Record<string, unknown>): ProjectFields {
  const out: ProjectFields = {};
  if (body.name !== undefined) {
    const { name } = body;
    if (name === null) throw errors.nullField('name');
    // DRF's CharField takes numbers as their text and nothing else.
    if (typeof name !== 'string' && typeof name !== 'number') throw errors.notAString('name');
    const text = String(name).trim();
    if (text === '') throw errors.blank('name');
    if (text.length > NAME_MAX) throw errors.tooLong('name', NAME_MAX);
    out.name = text;
  }
  if (body.timezone !== undefined) {
    const tz = body.timezone;
    if (typeof tz !== 'string' || !validTimezone(tz)) throw errors.invalidChoice(tz, 'timezone');
    out.timezone = tz;
  }
  if (body.access_control !== undefined) {
    if (typeof body.access_control !== 'boolean') throw errors.notABoolean('access_control');
    out.access_control = body.access_control;
  }
  if (body.week_start_day !== undefined) {
    const day = body.week_start_day;
    if (day !== null && day !== 0 && day !== 1) throw errors.invalidChoice(day, 'week_start_day');
    out.week_start_day = day;
  }
  if (body.test_account_filters !== undefined) {
    const filters = body.test_account_filters;
    // Property filters (each with a key) as insights read them; checked in full when a query uses them.
    const filter = (f: unknown) => typeof f === 'object' && f !== null && !Array.isArray(f) && typeof (f as { key?: unknown }).key === 'string';
    if (!Array.isArray(filters) || !filters.every(filter)) throw errors.validation('Must be a list of property filters, each with a key.', 'test_account_filters');
    out.test_account_filters = filters;
  }
  if (body.path_cleaning_filters !== undefined) out.path_cleaning_filters = pathCleaningRules(body.path_cleaning_filters);
  return out;
}
