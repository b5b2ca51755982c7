// A group's table of HogQL functions: each name's arity and how its DuckDB SQL is built. Every
// group file fills its own table with `define` (and `aggregate`); ./index.ts joins them.
import type { Sql } from '../../sql.js';
import type { Expr, HogNode, HType } from '../expr.js';

export type FunctionGroup = 'aggregate' | 'window' | 'date and time' | 'string' | 'JSON' | 'array' | 'conditional' | 'mathematics' | 'type conversion' | 'comparison and logic' | 'hashing and encoding' | 'IP addresses' | 'PostHog';

export interface Fx {
  /** The project's time zone, bound. */
  tz: Sql;
  weekStart: 0 | 1;
  distinct: boolean;
  /** Parametric arguments: `quantile(0.9)(x)` has params [0.9]. */
  params: Expr[];
  node: HogNode;
  name: string;
}

export interface FunctionSpec {
  group: FunctionGroup;
  min: number;
  max: number;
  aggregate?: boolean;
  /** How many parametric arguments it takes (quantile: 1). */
  params?: [number, number];
  build(args: Expr[], fx: Fx): Expr;
}

export type Catalogue = Map<string, FunctionSpec>;

/**
 * A new table and what fills it. A name defined again replaces its entry (a later, wider form
 * built over the earlier one). An aggregate (ClickHouse's -If forms: the condition last, as a
 * FILTER) is named as its result's aggregate; it is nullable unless it counts or collects.
 */
export function catalogue() {
  const functions: Catalogue = new Map();
  function define(group: FunctionGroup, names: string | string[], min: number, max: number, build: FunctionSpec['build'], extra: Partial<FunctionSpec> = {}): void {
    for (const name of Array.isArray(names) ? names : [names]) functions.set(name, { group, min, max, build, ...extra });
  }
  function aggregate(names: string | string[], build: (args: Expr[], fx: Fx) => { sql: Sql; type: HType; nullable?: boolean }, min: number, max: number, params?: [number, number]): void {
    for (const name of Array.isArray(names) ? names : [names]) {
      functions.set(name, {
        group: 'aggregate', min, max, aggregate: true, params,
        build(args, fx) {
          const built = build(args, fx);
          return { sql: built.sql, type: built.type, aggregate: name, nullable: built.nullable ?? (built.type !== 'UInt' && built.type !== 'Array') };
        },
      });
    }
  }
  return { functions, define, aggregate };
}
