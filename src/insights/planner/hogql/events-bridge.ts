// EventsQuery's expressions (../hogql-expr.ts) reach the HogQL function catalogue through
// here: a call the EventsQuery translator has no case of is built by the catalogue, its
// arguments and result converted between the two representations (EventsQuery reads
// timestamps as epoch µs and properties as JSON; the catalogue works on DuckDB values).
import { QueryError } from '../errors.js';
import type { HogExpr, Translated } from '../hogql-types.js';
import { sql } from '../sql.js';
import { HogQLError, zoneSql, type Expr, type HType } from './expr.js';
import { closestFunction, lookupFunction } from './functions/index.js';

function toExpr(t: Translated, node: HogExpr): Expr {
  const constant = node.node === 'Constant' ? { value: node.value } : undefined;
  const base = { aggregate: t.aggregate ? 'aggregate' : null, nullable: true, constant };
  if (t.decode === 'timestamp') return { ...base, sql: t.asText, type: 'DateTime', nullable: false };
  if (t.decode === 'json' || t.type === 'String' || t.type === 'UUID') return { ...base, sql: t.asText, type: 'String', nullable: node.node !== 'Constant' };
  const types: Record<string, HType> = { UInt64: 'UInt', Float64: constant && Number.isSafeInteger(constant.value) ? 'Int' : 'Float', Bool: 'Bool', 'Nullable(Nothing)': 'Null' };
  return { ...base, sql: t.sql, type: types[t.type] ?? 'Unknown' };
}

function toTranslated(e: Expr, aggregate: boolean, persons: boolean): Translated {
  const flags = { aggregate, persons };
  switch (e.type) {
    case 'DateTime': {
      const us = sql`epoch_us(${e.sql})`;
      return { sql: us, asText: e.sql, asNumber: us, type: "DateTime64(6, 'UTC')", decode: 'timestamp', ...flags };
    }
    case 'Array':
    case 'Tuple':
      return { sql: sql`CAST(to_json(${e.sql}) AS VARCHAR)`, asText: sql`CAST(${e.sql} AS VARCHAR)`, asNumber: sql`NULL`, type: 'Array', decode: 'json', ...flags };
    case 'Date':
      return { sql: sql`CAST(${e.sql} AS VARCHAR)`, asText: sql`CAST(${e.sql} AS VARCHAR)`, asNumber: sql`NULL`, type: 'Date', decode: 'plain', ...flags };
    default: {
      const type = e.type === 'UInt' || e.type === 'Int' ? 'UInt64' : e.type === 'Float' ? 'Float64' : e.type === 'Bool' ? 'Bool' : 'String';
      const asText = e.type === 'String' ? e.sql : sql`CAST(${e.sql} AS VARCHAR)`;
      return { sql: e.sql, asText, asNumber: sql`TRY_CAST(${e.sql} AS DOUBLE)`, type, decode: 'plain', ...flags };
    }
  }
}

/** `expr` (a Call) built by the HogQL catalogue from its translated arguments; unknown names are refused with a hint. */
export function catalogueCall(expr: HogExpr, args: Translated[], zone: string, attr: string): Translated {
  const name = String(expr.name);
  const spec = lookupFunction(name);
  if (spec === undefined || spec.group === 'window') {
    const hint = closestFunction(name);
    throw new QueryError(`Unsupported function call '${name}(...)'.${hint ? ` Perhaps you meant '${hint}(...)'?` : ''}`, attr);
  }
  const nodes = expr.args as HogExpr[];
  if (nodes.length < spec.min || nodes.length > spec.max) throw new QueryError(`Function '${name}' expects ${spec.min === spec.max ? spec.min : `${spec.min} to ${spec.max}`} arguments, found ${nodes.length}`, attr);
  if (spec.aggregate && args.some((a) => a.aggregate)) throw new QueryError(`Aggregation cannot be nested inside another aggregation '${name}'.`, attr);
  const params = ((expr.params ?? []) as HogExpr[]).map((p) => ({ sql: sql`NULL`, type: 'Float' as const, aggregate: null, nullable: false, constant: p.node === 'Constant' ? { value: p.value } : undefined }));
  if (spec.params !== undefined && params.length < spec.params[0]) throw new QueryError(`Aggregation '${name}' requires parameters, e.g. ${name}(0.5)(x)`, attr);
  try {
    const built = spec.build(args.map((a, i) => toExpr(a, nodes[i])), {
      tz: zoneSql(zone), weekStart: 0, distinct: expr.distinct === true, params, node: { node: 'Call' }, name,
    });
    return toTranslated(built, spec.aggregate === true || args.some((a) => a.aggregate), args.some((a) => a.persons));
  } catch (err) {
    if (err instanceof HogQLError) throw new QueryError(err.message, attr);
    throw err;
  }
}
