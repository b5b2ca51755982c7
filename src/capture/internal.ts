// Events the server itself captures into a project (a destination's postHogCapture): the
// same path as a capture request's, from the scan's drops and checks to the request frame
// appended to the event log, with the project known rather than read from a token.
import type { EventLog } from '../log/types.js';
import { errors } from '../errors.js';
import { captureFrame } from './frames.js';
import { scanCapture } from './scan.js';
import { findUnstorableKey } from './storable.js';

const NO_QUERY = new URLSearchParams();

/** Appends `events` (raw, as an SDK sends them) to the log for `projectId`; resolves once durable. Throws the capture errors. */
export async function captureInProject(log: EventLog, projectId: number, events: readonly object[], nowMs: number): Promise<number> {
  const text = Buffer.from(JSON.stringify({ batch: events }));
  const scan = scanCapture(JSON.parse(text.toString('utf8')), NO_QUERY);
  if (scan.kept === 0) return 0;
  const unstorable = findUnstorableKey(text, scan.rawEvents);
  if (unstorable !== null) throw errors.unstorableKey(unstorable.key, unstorable.event);
  await log.appendFrame(captureFrame({
    projectId, nowMs, ip: null, sentAtMs: null, historical: false, droppedAt: scan.droppedAt, kept: scan.kept, missingUuids: scan.missingUuids,
  }, text));
  return scan.kept;
}
