// DuckDB's errors that a query brings on itself (a binder, conversion, range or input error:
// a column the grouping lacks, a text that is no number, a regex that does not compile) are
// the client's: a 400 with DuckDB's first line, never the SQL around it. Failures of the
// store itself (I/O, internal errors) stay server errors.
import { QueryError } from '../planner/errors.js';

const CLIENT_ERRORS = new Set([
  'Binder', 'Conversion', 'Invalid Input', 'Out of Range', 'Parser', 'Syntax', 'Catalog', 'Not implemented', 'Invalid type',
  'Mismatch Type', 'Constraint', 'Out of Memory', 'Dependency',
]);

/** The QueryError a DuckDB failure stands for, or null when it is not the query's fault. */
export function queryErrorOf(err: unknown): QueryError | null {
  if (!(err instanceof Error)) return null;
  // The client library prefixes what its statement splitting meets (a parser error).
  const match = /^(?:Failed to extract statements: )?([A-Za-z][A-Za-z ]*?) Error: ([^\n]*)/.exec(err.message);
  if (match === null || !CLIENT_ERRORS.has(match[1])) return null;
  const detail = match[1] === 'Out of Memory'
    ? 'The query needs more memory than the query engine may use: narrow its date range, filters or breakdown'
    : /^Max expression depth limit/.test(match[2])
      ? 'its expressions nest more than 1,000 levels deep: split long chains of operators or nested calls'
      : match[2].trim();
  return new QueryError(`The query could not be run: ${detail}`, null);
}
