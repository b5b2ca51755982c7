// A query the planner cannot run as asked: becomes a 400 validation_error with the field
// it names (src/errors.ts maps it at the API edge).
export class QueryError extends Error {
  readonly attr: string | null;

  constructor(detail: string, attr: string | null = null) {
    super(detail);
    this.attr = attr;
  }
}
