// Pure normalization of a decoded capture payload into events: token, distinct id,
// uuid, clock-skew-corrected timestamp, $set folding, $ip. No I/O; the clock, the
// client address and the uuid source come in as arguments.
import { errors } from '../errors.js';
import type { CapturedEvent } from '../log/types.js';
import { checkBatchEnvelope, checkRawEvent } from './schemas.js';

export type DropReason = 'missing_event_name' | 'missing_distinct_id' | 'invalid_event';

export interface NormalizeContext {
  now: Date;
  ip: string | null;
  query: URLSearchParams;
  newUuid: () => string;
}

export type PendingEvent = Omit<CapturedEvent, 'project_id'>;

export interface NormalizedCapture {
  token: string | null;
  events: PendingEvent[];
  dropped: Partial<Record<DropReason, number>>;
}

const MAX_DISTINCT_ID = 200;
// PostHog replaces timestamps more than 23 hours in the future with `now`.
const FUTURE_LIMIT_MS = 23 * 3600 * 1000;

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function tokenOf(v: unknown): string | null {
  return typeof v === 'string' && v.length > 0 ? v : null;
}

function distinctIdOf(ev: Obj, props: Obj | undefined): string | null {
  let raw = ev.distinct_id ?? ev.$distinct_id ?? props?.distinct_id;
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') raw = typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
  const id = raw as string;
  if (id.trim().length === 0) return null;
  return id.length > MAX_DISTINCT_ID ? Array.from(id).slice(0, MAX_DISTINCT_ID).join('') : id;
}

function parseTime(v: unknown): number | null {
  if (typeof v !== 'string' || v.length === 0) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t;
}

function isCanonicalIso(v: string): boolean {
  return v.length === 24 && v.charCodeAt(23) === 90 /* Z */ && v.charCodeAt(10) === 84 /* T */ && v.charCodeAt(19) === 46 /* . */;
}

export function eventTimestamp(ev: Obj, props: Obj, nowMs: number, sentAtMs: number | null, nowIso?: string): string {
  if ((ev.timestamp === undefined || ev.timestamp === null) && ev.offset === undefined && nowIso !== undefined) return nowIso;
  const ts = parseTime(ev.timestamp);
  const sentAt = props.$ignore_sent_at === true ? null : sentAtMs;
  // SDKs send canonical UTC ISO strings; keep them as they are when nothing changes them.
  if (ts !== null && sentAt === null && ts <= nowMs + FUTURE_LIMIT_MS && isCanonicalIso(ev.timestamp as string)) {
    return ev.timestamp as string;
  }
  let result: number;
  if (ts !== null) result = sentAt !== null ? nowMs + (ts - sentAt) : ts;
  else if (typeof ev.offset === 'number' && Number.isFinite(ev.offset)) result = nowMs - ev.offset;
  else result = nowMs;
  if (!Number.isFinite(result) || result > nowMs + FUTURE_LIMIT_MS || result < 0) result = nowMs;
  return new Date(result).toISOString();
}

function foldSet(ev: Obj, props: Obj, key: '$set' | '$set_once') {
  const top = ev[key];
  if (!isObject(top)) return;
  const inner = props[key];
  props[key] = isObject(inner) ? { ...top, ...inner } : top;
}

function agree(current: string | null, next: string | null): string | null {
  if (next === null) return current;
  if (current !== null && current !== next) {
    throw errors.invalidPayload('Multiple api keys in one request: all events must use the same project API key.', 'api_key');
  }
  return next;
}

export function normalizeCapture(payload: unknown, ctx: NormalizeContext): NormalizedCapture {
  let rawEvents: unknown[];
  let token: string | null = tokenOf(ctx.query.get('token')) ?? tokenOf(ctx.query.get('api_key'));
  let historical = false;
  let sentAtMs: number | null = null;

  if (Array.isArray(payload)) {
    rawEvents = payload;
  } else if (isObject(payload) && 'batch' in payload) {
    if (!checkBatchEnvelope.Check(payload)) throw errors.invalidPayload('Malformed batch: `batch` must be an array of events.', 'batch');
    rawEvents = payload.batch;
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
    const underscore = ctx.query.get('_');
    if (underscore && /^\d+$/.test(underscore)) sentAtMs = Number(underscore);
  }

  const nowMs = ctx.now.getTime();
  const nowIso = ctx.now.toISOString();
  const sentAtIso = sentAtMs !== null ? new Date(sentAtMs).toISOString() : null;
  const events: PendingEvent[] = [];
  const dropped: NormalizedCapture['dropped'] = {};
  const drop = (r: DropReason) => { dropped[r] = (dropped[r] ?? 0) + 1; };

  for (const raw of rawEvents) {
    if (!isObject(raw)) { drop('invalid_event'); continue; }
    const props = isObject(raw.properties) ? raw.properties : undefined;
    token = agree(token, tokenOf(raw.token) ?? tokenOf(raw.$token) ?? tokenOf(raw.api_key) ?? tokenOf(props?.token));
    if (typeof raw.event !== 'string' || raw.event.length === 0) { drop('missing_event_name'); continue; }
    const distinctId = distinctIdOf(raw, props);
    if (distinctId === null) { drop('missing_distinct_id'); continue; }
    if (!checkRawEvent.Check(raw)) { drop('invalid_event'); continue; }

    const properties: Obj = props ?? {};
    foldSet(raw, properties, '$set');
    foldSet(raw, properties, '$set_once');
    if (properties.$ip === undefined && ctx.ip !== null) properties.$ip = ctx.ip;
    events.push({
      uuid: typeof raw.uuid === 'string' ? raw.uuid.toLowerCase() : ctx.newUuid(),
      event: raw.event,
      distinct_id: distinctId,
      properties,
      timestamp: eventTimestamp(raw, properties, nowMs, sentAtMs, nowIso),
      ip: ctx.ip,
      now: nowIso,
      sent_at: sentAtIso,
      historical,
    });
  }
  if (token !== null && token.startsWith('phx_')) throw errors.personalKeyAsToken();
  return { token, events, dropped };
}
