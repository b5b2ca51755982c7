// Captured events for consumer tests: one project, numbered uuids, one second apart
// after `nowMs`, as the log would hand them over.
import type { CapturedEvent } from '../../src/log/types.js';

export function eventMaker(projectId: number, nowMs: number) {
  let n = 0;
  return (event: string, distinctId: string, properties: Record<string, unknown> = {}, uuid = `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`): CapturedEvent => ({
    uuid, event, distinct_id: distinctId, properties, timestamp: new Date(nowMs + n * 1000).toISOString(),
    project_id: projectId, ip: null, now: new Date(nowMs).toISOString(), sent_at: null, historical: false,
  });
}
