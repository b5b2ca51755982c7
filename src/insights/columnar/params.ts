// Planner parameters (planner/sql.ts) → DuckDB values and types.
import type { DuckDBType, DuckDBValue } from '@duckdb/node-api';
import { BIGINT, BOOLEAN, DOUBLE, LIST, TIMESTAMPTZ, VARCHAR, DuckDBTimestampTZValue, listValue } from './duckdb.js';
import type { Param, ParamKind } from '../planner/sql.js';

const CONVERT: Record<ParamKind, { type: DuckDBType; value(v: unknown): DuckDBValue }> = {
  int: { type: BIGINT, value: (v) => BigInt(v as number) },
  float: { type: DOUBLE, value: (v) => v as number },
  text: { type: VARCHAR, value: (v) => v as string },
  bool: { type: BOOLEAN, value: (v) => v as boolean },
  timestamp: { type: TIMESTAMPTZ, value: (v) => new DuckDBTimestampTZValue(BigInt(Math.round(v as number))) },
  texts: { type: LIST(VARCHAR), value: (v) => listValue(v as string[]) },
  floats: { type: LIST(DOUBLE), value: (v) => listValue(v as number[]) },
};

export function duckValues(params: readonly Param[]): { values: DuckDBValue[]; types: DuckDBType[] } {
  return { values: params.map((p) => CONVERT[p.kind].value(p.value)), types: params.map((p) => CONVERT[p.kind].type) };
}
