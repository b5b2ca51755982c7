// The one place errors become HTTP responses, plus small JSON helpers.
import { ApiError, errors } from '../errors.js';
import type { HttpResponse } from './types.js';
import type { Logger } from '../logger.js';
import { ControlUnavailableError } from '../state/errors.js';

const JSON_HEADERS = Object.freeze({ 'Content-Type': 'application/json' });

export function json(status: number, body: unknown, headers?: Record<string, string>): HttpResponse {
  return { status, headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, body: JSON.stringify(body) };
}

export function noContent(status = 204): HttpResponse {
  return { status, body: null };
}

export function errorResponse(err: unknown, log: Logger): HttpResponse {
  // A management write the control stream did not take (NATS down): retry later, as capture's 503.
  if (err instanceof ControlUnavailableError) {
    log.warn('management write refused', { error: err.message });
    err = errors.unavailable('Management writes cannot reach the control stream right now. Retry later.');
  }
  const apiError = err instanceof ApiError ? err : null;
  if (!apiError) {
    log.error('unhandled error', { error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
  const e = apiError ?? errors.internal();
  if (e.bodiless) return { status: e.status, headers: e.headers, body: null };
  return json(e.status, e.body, e.headers);
}
