// JSON, its keys as a bound JSON pointer (one key or several, constants).
import { raw, sql, text, type Sql } from '../../sql.js';
import { expr, fail, str, tupleSql, type Expr, type HType } from '../expr.js';
import { catalogue, type Fx } from './catalogue.js';
import { constantText } from './helpers.js';

const { functions, define } = catalogue();
export { functions as json };

const POINTER_KEY = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
function jsonPath(keys: Expr[], fx: Fx): Sql {
  const parts = keys.map((k) => {
    const v = k.constant?.value;
    if (typeof v === 'number' && Number.isInteger(v)) return String(v > 0 ? v - 1 : v);
    if (typeof v !== 'string') fail(`${fx.name}() needs its keys as constants`, fx.node);
    return POINTER_KEY(v as string);
  });
  return sql`${text(parts.length === 0 ? '' : `/${parts.join('/')}`)}`;
}
// As ClickHouse's (FunctionsJSON.cpp, JSONExtractTree.cpp): text that is not JSON, a missing
// key or a value of the wrong kind reads as the type's default (try(): DuckDB would raise).
const jsonFn = (name: string, type: HType, read: (j: Sql, path: Sql) => Sql) =>
  define('JSON', name, 1, 6, ([j, ...keys], fx) => expr(read(j.sql, jsonPath(keys, fx)), type, [j], { nullable: true }));
// A number from a JSON number or a string holding one; a fraction is cut toward zero for an
// integer type (DuckDB's cast would round it); true/false, null, arrays and objects: none.
const jsonNumber = (j: Sql, p: Sql, duck: string) => {
  const s = sql`json_extract_string(${j}, ${p})`;
  const whole = raw(duck);
  // (true/false read as text, which no cast takes as a number: one JSON read, no kind check.)
  return sql`try(CASE WHEN regexp_matches(${s}, '[.eE]') THEN TRY_CAST(trunc(TRY_CAST(${s} AS DOUBLE)) AS ${whole}) ELSE TRY_CAST(${s} AS ${whole}) END)`;
};
jsonFn('JSONExtractString', 'String', (j, p) => sql`coalesce(try(json_extract_string(${j}, ${p})), '')`);
jsonFn('JSONExtractInt', 'Int', (j, p) => sql`coalesce(${jsonNumber(j, p, 'BIGINT')}, 0)`);
jsonFn('JSONExtractUInt', 'UInt', (j, p) => sql`coalesce(${jsonNumber(j, p, 'UBIGINT')}, 0)`);
jsonFn('JSONExtractFloat', 'Float', (j, p) => sql`coalesce(try(TRY_CAST(json_extract_string(${j}, ${p}) AS DOUBLE)), 0)`);
// true/false, or an integer other than 0; anything else (a string "true", 1.5) is false.
jsonFn('JSONExtractBool', 'Bool', (j, p) => sql`coalesce(try(CASE json_type(${j}, ${p}) WHEN 'BOOLEAN' THEN json_extract_string(${j}, ${p}) = 'true' WHEN 'BIGINT' THEN TRY_CAST(json_extract_string(${j}, ${p}) AS HUGEINT) <> 0 WHEN 'UBIGINT' THEN TRY_CAST(json_extract_string(${j}, ${p}) AS HUGEINT) <> 0 END), false)`);
jsonFn('JSONExtractRaw', 'String', (j, p) => sql`coalesce(try(CAST(json_extract(${j}, ${p}) AS VARCHAR)), '')`);
jsonFn('JSONHas', 'Bool', (j, p) => sql`coalesce(try(json_extract(${j}, ${p}) IS NOT NULL), false)`);
// An array's elements or an object's keys; 0 for anything else.
jsonFn('JSONLength', 'UInt', (j, p) => sql`coalesce(try(CASE json_type(${j}, ${p}) WHEN 'ARRAY' THEN json_array_length(${j}, ${p}) WHEN 'OBJECT' THEN len(json_keys(${j}, ${p})) END), 0)`);
// Each element's JSON text, quotes kept, a null element the text null (ClickHouse's); not an array: empty.
jsonFn('JSONExtractArrayRaw', 'Array', (j, p) => sql`coalesce(try(list_transform(TRY_CAST(json_extract(${j}, ${p}) AS JSON[]), lambda x: coalesce(CAST(x AS VARCHAR), 'null'))), CAST([] AS VARCHAR[]))`);
jsonFn('JSONExtractKeys', 'Array', (j, p) => sql`coalesce(try(CASE WHEN json_type(${j}, ${p}) = 'OBJECT' THEN json_keys(${j}, ${p}) END), CAST([] AS VARCHAR[]))`);
// ClickHouse's names of the kinds; a missing key is Null (the enum's default).
jsonFn('JSONType', 'String', (j, p) => sql`coalesce(try(CASE json_type(${j}, ${p}) WHEN 'OBJECT' THEN 'Object' WHEN 'ARRAY' THEN 'Array' WHEN 'VARCHAR' THEN 'String' WHEN 'BIGINT' THEN 'Int64' WHEN 'UBIGINT' THEN CASE WHEN TRY_CAST(json_extract_string(${j}, ${p}) AS BIGINT) IS NULL THEN 'UInt64' ELSE 'Int64' END WHEN 'DOUBLE' THEN 'Double' WHEN 'BOOLEAN' THEN 'Bool' END), 'Null')`);
define('JSON', 'isValidJSON', 1, 1, ([j]) => expr(sql`coalesce(json_valid(${str(j)}), false)`, 'Bool', [j], { nullable: false }));

// An array's length; NULL for anything else (ClickHouse's Nullable answer).
jsonFn('JSONArrayLength', 'UInt', (j, p) => sql`try(CASE json_type(${j}, ${p}) WHEN 'ARRAY' THEN json_array_length(${j}, ${p}) END)`);
// JSONExtract(json, keys…, 'Type'): the typed extractions by their type's name; Nullable(T)
// answers NULL where the value is missing or null.
const EXTRACT_AS: Record<string, string> = {
  String: 'JSONExtractString', Bool: 'JSONExtractBool', Float32: 'JSONExtractFloat', Float64: 'JSONExtractFloat',
  ...Object.fromEntries(['Int8', 'Int16', 'Int32', 'Int64'].map((t) => [t, 'JSONExtractInt'])),
  ...Object.fromEntries(['UInt8', 'UInt16', 'UInt32', 'UInt64'].map((t) => [t, 'JSONExtractUInt'])),
};
define('JSON', 'JSONExtract', 2, 7, (args, fx) => {
  const typeName = constantText(args[args.length - 1], fx, 'the type (last)');
  const inner = /^Nullable\((.+)\)$/.exec(typeName)?.[1] ?? typeName;
  const via = EXTRACT_AS[inner];
  if (via === undefined) fail(`JSONExtract(): the type '${typeName}' is not supported: use String, Bool, Int8-64, UInt8-64, Float32/64 or Nullable of one`, fx.node);
  const keys = args.slice(0, -1);
  const value = functions.get(via)!.build(keys, { ...fx, name: via });
  if (inner === typeName) return value;
  const path = jsonPath(keys.slice(1), fx);
  return { ...value, sql: sql`(CASE WHEN coalesce(try(json_type(${keys[0].sql}, ${path})), 'NULL') = 'NULL' THEN NULL ELSE ${value.sql} END)` };
});
// An object's (key, raw JSON text) pairs, in order; anything else: none.
jsonFn('JSONExtractKeysAndValuesRaw', 'Array', (j, p) => {
  const at = (k: Sql) => sql`${p} || '/' || replace(replace(${k}, '~', '~0'), '/', '~1')`;
  return sql`coalesce(try(CASE WHEN json_type(${j}, ${p}) = 'OBJECT' THEN list_transform(json_keys(${j}, ${p}), lambda hq_k: ${tupleSql([raw('hq_k'), sql`CAST(json_extract(${j}, ${at(raw('hq_k'))}) AS VARCHAR)`])}) END), [])`;
});
// JSON_VALUE(json, '$.path'): a scalar's text; '' for objects, arrays and what is missing.
define('JSON', 'JSON_VALUE', 2, 2, ([j, path]) =>
  expr(sql`coalesce(try(CASE WHEN json_type(${str(j)}, ${str(path)}) IN ('OBJECT', 'ARRAY') THEN '' ELSE json_extract_string(${str(j)}, ${str(path)}) END), '')`, 'String', [j, path]));
