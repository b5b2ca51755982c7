// A failed delivery as the API shows it: the request's method, URL and body, never its
// headers (where credentials usually go), with the function's secret input values
// replaced as its logs replace them.
import type { FailedDelivery } from '../runtime/env.js';
import type { StoredHogFunction } from '../types.js';

export function secretRedactor(fn: StoredHogFunction): (text: string) => string {
  const values = Object.values(fn.secret_inputs).map((i) => i.value).filter((v): v is string => typeof v === 'string' && v.length > 0);
  if (values.length === 0) return (text) => text;
  return (text) => values.reduce((t, v) => t.replaceAll(v, '***REDACTED***'), text);
}

export function failedDeliveryResponse(f: FailedDelivery, redact: (text: string) => string) {
  return {
    id: f.id, event_uuid: f.event_uuid, instance_id: f.instance_id, mapping_index: f.mapping_index, failed_at: f.failed_at,
    attempts: f.attempts, status: f.status, error: redact(f.error),
    request: { method: f.request.method, url: redact(f.request.url), body: f.request.body === null ? null : redact(f.request.body) },
    resent: f.resent, last_resent_at: f.last_resent_at,
  };
}
