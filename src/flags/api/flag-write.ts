// Creating and updating a flag from a request body: PostHog's serializer fields in its
// order (the first failing field is the error), its filter rules, then the update-time
// checks on deleting, disabling and enabling. Versions start at 1 and grow by one on
// every update, as in PostHog.
import type { ProjectContext, Project, User } from '../../access/index.js';
import { errors } from '../../errors.js';
import type { FlagsTables } from '../tables.js';
import type { FlagFiltersDefinition } from '../types.js';
import { projectCohorts, projectFlags } from '../definitions/store.js';
import { insertFlag, saveFlag } from '../definitions/commands.js';
import type { StateWrites } from '../../state/index.js';
import type { StoredFlag } from '../definitions/types.js';
import { checkStateChange } from './dependency-rules.js';
import { booleanField, charField, choiceField, dictField } from '../../http/fields.js';
import { validateFilters } from './filter-rules.js';

export interface WriteContext {
  store: FlagsTables;
  writes: StateWrites;
  project: Project;
  user: User;
  now: Date;
}

// A write of the request's caller in its project, now.
export function writeContext(store: FlagsTables, writes: StateWrites, { project, user }: ProjectContext): WriteContext {
  return { store, writes, project, user, now: new Date() };
}

const KEY_MAX = 400;
const KEY_FORMAT = /^[a-zA-Z0-9_-]+$/;
const RUNTIMES = ['server', 'client', 'all'] as const;
const BUCKETING = ['distinct_id', 'device_id'] as const;
// What PostHog shows (and evaluates) for a flag created without filters: everyone.
const NO_FILTERS: FlagFiltersDefinition = { groups: [{ properties: [], rollout_percentage: null }] };

type Body = Record<string, unknown>;

function parseKey(body: Body, flags: readonly StoredFlag[], self: StoredFlag | undefined): string | undefined {
  const key = charField(body, 'key', { max: KEY_MAX }) ?? undefined;
  if (key === undefined) {
    if (!self) throw errors.required('key');
    return undefined;
  }
  if (flags.some((f) => !f.deleted && f.key === key && f.id !== self?.id)) {
    throw errors.validation('There is already a feature flag with this key.', 'key', 'unique');
  }
  if (!KEY_FORMAT.test(key)) throw errors.validation('Only letters, numbers, hyphens (-) & underscores (_) are allowed.', 'key', 'invalid_key');
  return key;
}

function parse(body: Body, ctx: WriteContext, self: StoredFlag | undefined) {
  const flags = projectFlags(ctx.store, ctx.project.id);
  const name = charField(body, 'name', { allowBlank: true }) ?? undefined;
  const key = parseKey(body, flags, self);
  const rawFilters = dictField(body, 'filters');
  const filters = rawFilters && validateFilters(rawFilters, {
    creating: !self, flagKey: self?.key ?? key, current: self?.filters, flags, now: ctx.now.getTime(),
    cohorts: new Map(projectCohorts(ctx.store, ctx.project.id).map((c) => [c.id, c])),
  });
  return {
    flags, name, key, filters,
    deleted: booleanField(body, 'deleted'),
    active: booleanField(body, 'active'),
    ensure_experience_continuity: booleanField(body, 'ensure_experience_continuity'),
    evaluation_runtime: choiceField(body, 'evaluation_runtime', RUNTIMES, true),
    bucketing_identifier: choiceField(body, 'bucketing_identifier', BUCKETING, true),
  };
}

export function createFlag(body: Body, ctx: WriteContext): Promise<StoredFlag> {
  const f = parse(body, ctx, undefined);
  const now = ctx.now.toISOString();
  return insertFlag(ctx.writes, {
    project_id: ctx.project.id, key: f.key!, name: f.name ?? '', filters: f.filters ?? NO_FILTERS,
    active: f.active ?? true, deleted: f.deleted ?? false, ensure_experience_continuity: f.ensure_experience_continuity ?? false,
    version: 1, evaluation_runtime: f.evaluation_runtime === undefined ? 'all' : f.evaluation_runtime,
    bucketing_identifier: f.bucketing_identifier === undefined ? 'distinct_id' : f.bucketing_identifier,
    created_at: now, created_by: ctx.user.id, updated_at: now, last_modified_by: ctx.user.id,
  });
}

// Early-access conditions name the flag's key in a person property; a new key moves them.
function withEnrollmentKey(filters: FlagFiltersDefinition, key: string): FlagFiltersDefinition {
  if (!filters.super_groups) return filters;
  const super_groups = filters.super_groups.map((g) => ({
    ...g,
    properties: (g.properties ?? []).map((p) => (String(p.key ?? '').startsWith('$feature_enrollment/') ? { ...p, key: `$feature_enrollment/${key}` } : p)),
  }));
  return { ...filters, super_groups };
}

export async function updateFlag(flag: StoredFlag, body: Body, ctx: WriteContext): Promise<StoredFlag> {
  const f = parse(body, ctx, flag);
  checkStateChange(flag, f, f.flags);
  const key = f.key ?? flag.key;
  const filters = f.filters ?? flag.filters;
  const next: StoredFlag = {
    ...flag,
    key,
    name: f.name ?? flag.name,
    filters: key !== flag.key ? withEnrollmentKey(filters, key) : filters,
    active: f.active ?? flag.active,
    deleted: f.deleted ?? flag.deleted,
    ensure_experience_continuity: f.ensure_experience_continuity ?? flag.ensure_experience_continuity,
    evaluation_runtime: f.evaluation_runtime === undefined ? flag.evaluation_runtime : f.evaluation_runtime,
    bucketing_identifier: f.bucketing_identifier === undefined ? flag.bucketing_identifier : f.bucketing_identifier,
    version: flag.version + 1,
    updated_at: ctx.now.toISOString(),
    last_modified_by: ctx.user.id,
  };
  await saveFlag(ctx.writes, next);
  return next;
}
