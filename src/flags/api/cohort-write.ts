// Creating and updating a cohort: PostHog's serializer fields in its order, filters
// checked unless the cohort is static, and on update the rules that protect flags
// (no deleting a cohort active flags use, no event filters in one they use, no loops).
// Static cohorts take their members as `distinct_ids` (hedgerow's JSON form) or as PostHog's
// `csv` upload (a form's file: ./cohort-csv.ts); each write adds to the membership.
import { errors } from '../../errors.js';
import { limitDistinctId } from '../../capture/distinct-id.js';
import { cohortsNeeded } from '../definitions/cohort-refs.js';
import { projectCohorts, projectFlags } from '../definitions/store.js';
import { insertCohort, saveCohort } from '../definitions/commands.js';
import type { StoredCohort } from '../definitions/types.js';
import { checkUsableInFlags, createsLoop, validateCohortFilters } from './cohort-rules.js';
import { booleanField, charField, dictField } from '../../http/fields.js';
import type { WriteContext } from './flag-write.js';

type Body = Record<string, unknown>;

const NAME_MAX = 400;
const DESCRIPTION_MAX = 1000;
const EMPTY_FILTERS = { properties: { type: 'AND', values: [] } };

// Distinct ids named by an uploaded CSV (./cohort-csv.ts).
export type CsvMembers = (csv: string) => string[];

function distinctIds(body: Body, isStatic: boolean, fromCsv?: CsvMembers): string[] {
  if (body.csv !== undefined) {
    if (typeof body.csv !== 'string') throw errors.validation('The submitted data was not a file. Check the encoding type on the form.', 'csv');
    if (!isStatic) throw errors.validation('Can only add users to static cohorts', 'csv');
    if (fromCsv === undefined) throw errors.validation('CSV uploads are not accepted here', 'csv');
    return [...fromCsv(body.csv), ...distinctIds({ ...body, csv: undefined }, isStatic)].map(limitDistinctId);
  }
  const ids = body.distinct_ids;
  if (ids === undefined) return [];
  if (!Array.isArray(ids)) throw errors.validation('distinct_ids must be a list', 'distinct_ids');
  if (!isStatic) throw errors.validation('Can only add users to static cohorts', 'distinct_ids');
  if (!ids.every((id) => typeof id === 'string' && id !== '')) throw errors.validation('Each distinct id must be a non-empty string.', 'distinct_ids');
  // Cut as capture cuts distinct ids, so a member meets the person whose events carried
  // the same id, and every member fits an LMDB key (a 3,000-character id failed with a
  // 500; docs/decisions/0028).
  return (ids as string[]).map(limitDistinctId);
}

function parse(body: Body, self: StoredCohort | undefined, fromCsv?: CsvMembers) {
  const name = charField(body, 'name', { max: NAME_MAX, allowBlank: true, allowNull: true });
  const description = charField(body, 'description', { max: DESCRIPTION_MAX, allowBlank: true }) ?? undefined;
  const deleted = booleanField(body, 'deleted');
  const rawFilters = dictField(body, 'filters');
  // PostHog skips filter checks for static cohorts; filters mean nothing to one, so
  // hedgerow does not keep them. A cohort turning dynamic gets its filters checked.
  const staticCohort = body.is_static === true || (body.is_static === undefined && self?.is_static === true);
  const filters = rawFilters && !staticCohort ? validateCohortFilters(rawFilters) : undefined;
  const isStatic = booleanField(body, 'is_static');
  return { name, description, deleted, filters, isStatic, members: distinctIds(body, isStatic ?? self?.is_static ?? false, fromCsv) };
}

export function createCohort(body: Body, ctx: WriteContext, fromCsv?: CsvMembers): Promise<StoredCohort> {
  const c = parse(body, undefined, fromCsv);
  return insertCohort(ctx.writes, {
    project_id: ctx.project.id, name: c.name ?? null, description: c.description ?? '', filters: c.filters ?? EMPTY_FILTERS,
    is_static: c.isStatic ?? false, deleted: c.deleted ?? false, created_at: ctx.now.toISOString(), created_by: ctx.user.id,
    // A dynamic cohort is calculated once created (the insights domain's schedule picks it up).
    is_calculating: !(c.isStatic ?? false),
  }, c.members);
}

export function updateCohort(cohort: StoredCohort, body: Body, ctx: WriteContext, fromCsv?: CsvMembers): Promise<StoredCohort> {
  const c = parse(body, cohort, fromCsv);
  const cohorts = new Map(projectCohorts(ctx.store, ctx.project.id).map((x) => [x.id, x]));
  const live = new Map([...cohorts].filter(([, x]) => !x.deleted));
  const flagsUsing = projectFlags(ctx.store, ctx.project.id)
    .filter((f) => f.active && !f.deleted && cohortsNeeded(f.filters, live).includes(cohort.id));
  if (c.filters && !cohort.is_static && !c.isStatic && flagsUsing.length > 0) checkUsableInFlags(c.filters, cohorts);
  if (c.deleted === true && !cohort.deleted && flagsUsing.length > 0) {
    throw errors.validation(`This cohort is used in ${flagsUsing.length} active feature flag(s): ${flagsUsing.map((f) => f.name || f.key).join(', ')}. ` +
      'Please remove the cohort from these feature flags before deleting it.', null);
  }
  const filters = c.filters ?? cohort.filters;
  if (createsLoop(cohort.id, filters, cohorts)) throw errors.validation('Cohorts cannot reference other cohorts in a loop.', null);
  return saveCohort(ctx.writes, {
    ...cohort,
    name: c.name === undefined ? cohort.name : c.name,
    description: c.description ?? cohort.description,
    filters,
    is_static: c.isStatic ?? cohort.is_static,
    deleted: c.deleted ?? cohort.deleted,
    // New filters are calculated again, as PostHog recalculates a cohort on every update.
    is_calculating: !(c.isStatic ?? cohort.is_static) && (cohort.is_calculating === true || JSON.stringify(filters) !== JSON.stringify(cohort.filters) || c.isStatic === false),
  }, c.members);
}
