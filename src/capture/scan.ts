// The first half of capture's normalization (./normalize.ts, docs/decisions/0009): what
// the front end must know of a payload before it answers. Apart from buildEvents because
// it checks events against capture's TypeBox schemas, which the log readers' threads,
// running only buildEvents, then need not load.
import { errors } from '../errors.js';
import { isObject } from '../json.js';
import { buildEvents, parseTime, rawDistinctId, usableSentAt, type CaptureScan, type DropReason, type NormalizeContext, type NormalizedCapture } from './normalize.js';
import { checkBatchEnvelope, checkRawEvent } from './schemas.js';

function tokenOf(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

// An object id nested too deep for JSON.stringify would fail every read of the log record.
function stringifies(v: unknown): boolean {
  try {
    JSON.stringify(v);
    return true;
  } catch {
    return false;
  }
}

function agree(current: string | null, next: string | null): string | null {
  if (next === null) return current;
  if (current !== null && current !== next) {
    throw errors.invalidPayload('Multiple api keys in one request: all events must use the same project API key.', 'api_key');
  }
  return next;
}

// Token, verdicts and counts; throws the request's 400 or 401. Reads `payload` only.
export function scanCapture(payload: unknown, query: URLSearchParams): CaptureScan {
  let rawEvents: unknown[];
  let token: string | null = tokenOf(query.get('token')) ?? tokenOf(query.get('api_key'));
  let historical = false;
  let sentAtMs: number | null = null;

  if (Array.isArray(payload)) {
    rawEvents = payload;
  } else if (isObject(payload) && 'batch' in payload) {
    if (!checkBatchEnvelope.Check(payload)) throw errors.invalidPayload('Malformed batch: `batch` must be an array of events.', 'batch');
    rawEvents = payload.batch as unknown[];
    token = agree(token, tokenOf(payload.api_key) ?? tokenOf(payload.token));
    historical = payload.historical_migration === true;
    sentAtMs = parseTime(payload.sent_at);
  } else if (isObject(payload)) {
    rawEvents = [payload];
  } else {
    throw errors.invalidPayload('Malformed request data: expected an event, a list of events or a batch object.');
  }
  if (rawEvents.length === 0) throw errors.invalidPayload('No events in the request.');

  if (sentAtMs === null) {
    const underscore = query.get('_');
    if (underscore && /^\d+$/.test(underscore)) sentAtMs = usableSentAt(Number(underscore));
  }

  let droppedAt: number[] | null = null;
  const dropped: CaptureScan['dropped'] = {};
  let kept = 0;
  let missingUuids = 0;
  const drop = (i: number, r: DropReason) => {
    dropped[r] = (dropped[r] ?? 0) + 1;
    (droppedAt ??= []).push(i);
  };

  for (let i = 0; i < rawEvents.length; i++) {
    const raw = rawEvents[i];
    if (!isObject(raw)) { drop(i, 'invalid_event'); continue; }
    const props = isObject(raw.properties) ? raw.properties : undefined;
    token = agree(token, tokenOf(raw.token) ?? tokenOf(raw.$token) ?? tokenOf(raw.api_key) ?? tokenOf(props?.token));
    if (typeof raw.event !== 'string' || raw.event.length === 0) { drop(i, 'missing_event_name'); continue; }
    const rawId = rawDistinctId(raw, props);
    if (rawId === null) { drop(i, 'missing_distinct_id'); continue; }
    if (typeof rawId === 'object' && !stringifies(rawId)) { drop(i, 'invalid_event'); continue; }
    if (!checkRawEvent.Check(raw)) { drop(i, 'invalid_event'); continue; }
    kept++;
    if (typeof raw.uuid !== 'string') missingUuids++;
  }
  if (token !== null && token.startsWith('phx_')) throw errors.personalKeyAsToken();
  return { token, rawEvents, droppedAt, dropped, kept, missingUuids, historical, sentAtMs };
}

// Both halves at once, for callers that want events now (tests, tools). The events
// carry no project yet (project_id 0).
export function normalizeCapture(payload: unknown, ctx: NormalizeContext): NormalizedCapture {
  const scan = scanCapture(payload, ctx.query);
  const uuids: string[] = [];
  const events = buildEvents(scan.rawEvents, {
    projectId: 0, nowMs: ctx.now.getTime(), ip: ctx.ip, sentAtMs: scan.sentAtMs, historical: scan.historical,
    droppedAt: scan.droppedAt, uuid: (n) => (uuids[n] ??= ctx.newUuid()),
  });
  return { token: scan.token, events, dropped: scan.dropped };
}
