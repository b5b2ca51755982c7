// How the engine's failures reach a client: a query the engine cannot run is the client's
// mistake (400, with the field); no aggregation worker answering is a 503 to retry.
import { errors } from '../../errors.js';
import { EngineUnavailableError, QueryCancelledError } from '../engine.js';
import { QueryError } from '../planner/errors.js';

export async function asApiErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw toApiError(err);
  }
}

export function toApiError(err: unknown): unknown {
  if (err instanceof QueryError) return errors.validation(err.message, err.attr);
  if (err instanceof EngineUnavailableError) return errors.unavailable('The query engine did not answer in time. Retry later.');
  if (err instanceof QueryCancelledError) return errors.validation('Query cancelled', null, 'cancelled');
  return err;
}
