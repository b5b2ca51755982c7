// @duckdb/node-api, loaded with require(). It is CommonJS: an `import` of it from an ES
// module has Node scan the source of its ~36 files for their export names (cjs-module-lexer)
// before running them, ~200 ms of CPU in every thread that loads it (the aggregation
// worker of every node start, the query worker), where require() runs them as they are
// (bench/RESULTS.md, "A node's start: DuckDB required, flag workers on first use").
import { createRequire } from 'node:module';

type DuckDB = typeof import('@duckdb/node-api');

const duckdb = createRequire(import.meta.url)('@duckdb/node-api') as DuckDB;

export const { DuckDBInstance, DuckDBTimestampTZValue, BIGINT, BOOLEAN, DOUBLE, LIST, TIMESTAMPTZ, VARCHAR, listValue } = duckdb;
