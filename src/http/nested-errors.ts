// DRF reports an error inside a nested serializer under the path to it, joined with "__"
// by PostHog's error handler (masking__ttl, inputs_schema__0__type, mappings__1__inputs__url).
import { ApiError } from '../errors.js';

export function under<T>(prefix: string, validate: () => T): T {
  try {
    return validate();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const attr = err.body.attr === null ? prefix : `${prefix}__${err.body.attr}`;
    throw new ApiError(err.status, err.body.type, err.body.code, err.body.detail, attr, err.headers, err.bodiless);
  }
}
