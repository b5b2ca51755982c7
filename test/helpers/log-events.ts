// Captured events for log tests: unique uuids, an optional padding to reach a size.
import type { CapturedEvent } from '../../src/log/types.js';

let counter = 0;

export function logEvent(pad = 0, uuid = `log-${process.pid}-${++counter}`): CapturedEvent {
  return {
    uuid, event: 'log test', distinct_id: 'd1', properties: pad > 0 ? { pad: 'x'.repeat(pad) } : {},
    timestamp: new Date().toISOString(), project_id: 1, ip: null, now: new Date().toISOString(), sent_at: null, historical: false,
  };
}

export function logEvents(n: number, pad = 0): CapturedEvent[] {
  return Array.from({ length: n }, () => logEvent(pad));
}
