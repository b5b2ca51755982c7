// SQL text with bound parameters only. Every value a query carries (event names, property
// keys, filter values, dates) becomes a positional parameter; the only words spliced into
// the text are this module's own constants and identifiers from a fixed allow-list.
//
//   sql`SELECT count(*) FROM events WHERE event = ${name}`   → one parameter, never text
//   sql`... ${otherFragment} ...`                          → fragments nest
//   ident('browser')                                       → an allow-listed identifier

export type ParamKind = 'int' | 'float' | 'text' | 'bool' | 'timestamp' | 'texts' | 'floats';

/** A bound value and how it reaches DuckDB (see columnar/params.ts). */
export interface Param {
  readonly kind: ParamKind;
  readonly value: unknown;
}

/** A piece of SQL: text parts interleaved with parameters or nested fragments. */
export interface Sql {
  readonly parts: readonly (string | Param | Sql)[];
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

function isSql(x: unknown): x is Sql {
  return typeof x === 'object' && x !== null && 'parts' in x;
}

function isParam(x: unknown): x is Param {
  return typeof x === 'object' && x !== null && 'kind' in x && 'value' in x;
}

/** Plain JS values become parameters: integers as BIGINT, other numbers as DOUBLE. */
function toPart(value: unknown): Param | Sql {
  if (isSql(value) || isParam(value)) return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? int(value) : float(value);
  if (typeof value === 'string') return text(value);
  if (typeof value === 'boolean') return bool(value);
  throw new TypeError(`no SQL parameter for a ${typeof value}`);
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  const parts: (string | Param | Sql)[] = [];
  strings.forEach((s, i) => {
    if (s !== '') parts.push(s);
    if (i < values.length) parts.push(toPart(values[i]));
  });
  return { parts };
}

export const int = (value: number): Param => ({ kind: 'int', value });
export const float = (value: number): Param => ({ kind: 'float', value });
export const text = (value: string): Param => ({ kind: 'text', value });
export const bool = (value: boolean): Param => ({ kind: 'bool', value });
/** A TIMESTAMPTZ parameter, in microseconds since the epoch. */
export const timestamp = (micros: number): Param => ({ kind: 'timestamp', value: micros });
export const texts = (value: readonly string[]): Param => ({ kind: 'texts', value });
export const floats = (value: readonly number[]): Param => ({ kind: 'floats', value });

/** An identifier from the caller's own allow-list (column names, aliases). */
export function ident(name: string): Sql {
  if (!IDENTIFIER.test(name)) throw new Error(`not an identifier: ${name}`);
  return { parts: [name] };
}

/** Fixed SQL words of this module's callers (never user input). */
export function raw(textOfCaller: string): Sql {
  return { parts: [textOfCaller] };
}

export function join(items: readonly Sql[], separator: string): Sql {
  const parts: (string | Sql)[] = [];
  items.forEach((item, i) => {
    if (i > 0) parts.push(separator);
    parts.push(item);
  });
  return { parts };
}

export const and = (items: readonly Sql[]): Sql => (items.length === 0 ? raw('TRUE') : wrap(join(items, ' AND ')));
export const or = (items: readonly Sql[]): Sql => (items.length === 0 ? raw('FALSE') : wrap(join(items, ' OR ')));
export const wrap = (inner: Sql): Sql => ({ parts: ['(', inner, ')'] });

export interface Rendered {
  text: string;
  params: Param[];
}

/**
 * The statement text with $1, $2, … and its parameters in order. Equal values share one
 * parameter, so the same expression written twice (in SELECT and GROUP BY) reads the same
 * to DuckDB, which matches grouped expressions by their text.
 */
export function render(fragment: Sql): Rendered {
  const params: Param[] = [];
  const seen = new Map<string, number>();
  let out = '';
  const walk = (f: Sql): void => {
    for (const part of f.parts) {
      if (typeof part === 'string') out += part;
      else if (isSql(part)) walk(part);
      else {
        const key = `${part.kind}:${JSON.stringify(part.value)}`;
        let n = seen.get(key);
        if (n === undefined) {
          params.push(part);
          n = params.length;
          seen.set(key, n);
        }
        out += `$${n}`;
      }
    }
  };
  walk(fragment);
  return { text: out, params };
}
