// A cohort's members, as PostHog's cohort API lists them:
//   GET cohorts/:id/persons/               {next, previous, results: persons} (limit, offset)
//   GET cohorts/:id/persons/?format=csv    the same persons as CSV, flattened as PostHog's
//                                          CSV renderer flattens JSON (`distinct_ids.0`,
//                                          `properties.email`), every member up to the row cap
// Members are worked out in the columnar store now (planner/properties.ts cohortMembersSql),
// oldest person first; each is shown from the persons' own records.
import type { ManagementAuth } from '../../access/index.js';
import { errors } from '../../errors.js';
import type { ActionsTables } from '../../actions/index.js';
import { cohortById, type FlagsTables } from '../../flags/index.js';
import { pageOf, pageWindow } from '../../http/paginate.js';
import { json } from '../../http/reply.js';
import type { Route } from '../../http/types.js';
import { personByUuid, presentPerson, type PersonsTables } from '../../persons/index.js';
import { cohortsOf, withCohortActions } from '../api/query-service.js';
import { asApiErrors } from '../api/errors.js';
import type { InsightsEngine } from '../engine.js';
import { MAX_ROWS } from '../planner/hogql/compile.js';
import { toCsv } from '../csv.js';

export interface MemberRoutesDeps {
  auth: ManagementAuth;
  store: FlagsTables & PersonsTables & ActionsTables;
  engine: InsightsEngine;
  now(): number;
}

/** A JSON value as PostHog's CSV renderer flattens it: nested keys joined with dots. */
export function flatten(value: unknown, prefix: string, out: Map<string, unknown>): void {
  if (value !== null && typeof value === 'object' && (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else out.set(prefix, value);
}

export function memberRoutes({ auth, store, engine, now }: MemberRoutesDeps): Route[] {
  async function memberIds(projectId: number, cohortId: number, limit: number, offset: number): Promise<string[]> {
    const query = { kind: 'HogQLQuery', query: `select id from persons where id in cohort ${cohortId} order by created_at, id limit ${limit} offset ${offset}` };
    const cohorts = cohortsOf(store, projectId, query);
    const context = { projectId, timezone: 'UTC', weekStart: 0 as const, nowMs: now(), cohorts, actions: withCohortActions(store, projectId, cohorts) };
    const { response } = await asApiErrors(async () => engine.run(query, context, undefined, await engine.position()));
    return (response.results as [string][]).map(([id]) => id);
  }

  return auth.projectRoutes({
    methods: ['GET'], path: 'cohorts/:id/persons', scope: 'cohort', access: 'read',
    async handler(req, { project }) {
      const id = Number(req.params.id);
      const cohort = Number.isSafeInteger(id) ? cohortById(store, project.id, id) : undefined;
      if (!cohort || cohort.deleted) throw errors.notFound();
      const members = (ids: string[]) => ids.flatMap((uuid) => {
        const person = personByUuid(store, project.id, uuid);
        return person ? [presentPerson(person)] : [];
      });
      if (req.query.get('format') === 'csv') {
        const rows = members(await memberIds(project.id, id, MAX_ROWS, 0)).map((p) => {
          const flat = new Map<string, unknown>();
          flatten(p, '', flat);
          return flat;
        });
        const columns = [...new Set(rows.flatMap((r) => [...r.keys()]))];
        const body = toCsv({ columns, rows: rows.map((r) => columns.map((c) => r.get(c) ?? null)) });
        return { status: 200, headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="cohort-${id}.csv"` }, body };
      }
      const window = pageWindow(req);
      const limit = Math.min(window.limit, MAX_ROWS - 1);
      // One past the page says whether there is a next one.
      const ids = await memberIds(project.id, id, limit + 1, window.offset);
      const page = pageOf(req, { limit, offset: window.offset }, { results: members(ids.slice(0, limit)), seen: window.offset + ids.length }, false);
      return json(200, { next: page.next, previous: page.previous, results: page.results });
    },
  });
}
