// Planner parameters (planner/sql.ts) → DuckDB values and types.
import { BIGINT, BOOLEAN, DOUBLE, LIST, TIMESTAMPTZ, VARCHAR, DuckDBTimestampTZValue, listValue, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { Param } from '../planner/sql.js';

export function duckValues(params: readonly Param[]): { values: DuckDBValue[]; types: DuckDBType[] } {
  const values: DuckDBValue[] = [];
  const types: DuckDBType[] = [];
  for (const p of params) {
    switch (p.kind) {
      case 'int':
        values.push(BigInt(p.value as number));
        types.push(BIGINT);
        break;
      case 'float':
        values.push(p.value as number);
        types.push(DOUBLE);
        break;
      case 'text':
        values.push(p.value as string);
        types.push(VARCHAR);
        break;
      case 'bool':
        values.push(p.value as boolean);
        types.push(BOOLEAN);
        break;
      case 'timestamp':
        values.push(new DuckDBTimestampTZValue(BigInt(Math.round(p.value as number))));
        types.push(TIMESTAMPTZ);
        break;
      case 'texts':
        values.push(listValue(p.value as string[]));
        types.push(LIST(VARCHAR));
        break;
      case 'floats':
        values.push(listValue(p.value as number[]));
        types.push(LIST(DOUBLE));
        break;
    }
  }
  return { values, types };
}
