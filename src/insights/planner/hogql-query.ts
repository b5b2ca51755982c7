// HogQLQuery → one statement (./hogql/compile.ts) and PostHog's response: results as rows,
// columns by their HogQL names, types as [name, ClickHouse type] pairs, the query as `hogql`,
// and hasMore/limit/offset when PostHog's paginator ran (the query had no LIMIT).
import type { HogQLQuery } from '../schemas.js';
import type { Plan, PlanContext } from './context.js';
import { compileHogQL, type CompiledColumn } from './hogql/compile.js';
import type { HogNode } from './hogql/expr.js';

export interface HogQLQueryResult {
  results: unknown[][];
  columns: string[];
  types: [string, string][];
  hogql: string;
  hasMore?: boolean;
  limit?: number;
  offset?: number;
  timings: { k: string; t: number }[];
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

// RFC 3339 in UTC as PostHog's renderer writes it: a fraction only when there is one.
function dateTimeText(d: Date): string {
  const ms = d.getUTCMilliseconds();
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}${ms ? `.${pad(ms, 3)}000` : ''}Z`;
}

function plain(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
  if (v instanceof Date) return dateTimeText(v);
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object') return Object.values(v as Record<string, unknown>).map(plain);
  return v;
}

function decode(v: unknown, column: CompiledColumn): unknown {
  if (v instanceof Date && column.expr.type === 'Date') return v.toISOString().slice(0, 10);
  return plain(v);
}

export function planHogQLQuery(query: HogQLQuery, ctx: PlanContext, ast: HogNode, parseSeconds: number): Plan<HogQLQueryResult> {
  const started = performance.now();
  const variables: Record<string, unknown> = {};
  for (const v of Object.values(query.variables ?? {})) {
    if (v && typeof v === 'object' && typeof (v as { code_name?: unknown }).code_name === 'string') {
      const { code_name, value, isNull } = v as { code_name: string; value?: unknown; isNull?: boolean };
      variables[code_name] = isNull ? null : value ?? null;
    }
  }
  const filters = query.filters !== null && query.filters !== undefined && Object.values(query.filters).some((f) => f !== null && f !== undefined && !(Array.isArray(f) && f.length === 0));
  const compiled = compileHogQL(ast, query.query, {
    projectId: ctx.projectId, timezone: ctx.zone, weekStart: ctx.weekStart, values: query.values ?? {}, variables, filters,
  });
  const compileSeconds = (performance.now() - started) / 1000;
  return {
    statements: [compiled.statement],
    shape([rows]) {
      const page = compiled.paginated;
      const kept = page ? rows.slice(0, page.limit) : rows;
      const result: HogQLQueryResult = {
        results: kept.map((r) => compiled.columns.map((c, i) => decode(r[`c${i}`], c))),
        columns: compiled.columns.map((c) => c.name),
        types: compiled.columns.map((c) => [c.name, c.type]),
        hogql: query.query,
        timings: [{ k: './parse', t: parseSeconds }, { k: './compile', t: compileSeconds }],
      };
      if (page) Object.assign(result, { hasMore: rows.length > page.limit, limit: page.limit, offset: page.offset });
      return result;
    },
  };
}
