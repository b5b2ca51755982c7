// A query the planner cannot run as asked: becomes a 400 validation_error with the field
// it names (src/errors.ts maps it at the API edge).
export class QueryError extends Error {
  readonly attr: string | null;

  constructor(detail: string, attr: string | null = null) {
    super(detail);
    this.attr = attr;
  }
}

/**
 * `f()`, with a QueryError it throws naming its field under `field` (a query within a query:
 * an ActorsQuery's insight, a PathsQuery's funnel), so the 400 names the field as asked.
 */
export function within<T>(field: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof QueryError) throw new QueryError(err.message, err.attr ? `${field}.${err.attr}` : field);
    throw err;
  }
}
