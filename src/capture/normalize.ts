// Pure normalization of a decoded capture payload into events: token, distinct id,
// uuid, clock-skew-corrected timestamp, $set folding, $ip. No I/O; the clock, the
// client address and the uuid source come in as arguments.
//
// It runs in two halves (docs/decisions/0009). `scanCapture` (./scan.ts) is what the
// front end must know before it answers: the token, which events are kept or dropped
// (and why), and how many need a generated uuid; it reads the payload and changes
// nothing. `buildEvents` makes the events from the payload, the scan's verdicts and
// a context (clock, address, project, uuids); the log reader runs it in the consumer
// thread, on the request's JSON text and the frame header capture wrote beside it
// (src/capture/frame.ts). Given the same inputs it returns the same events, so a
// replayed log record yields the same uuids and timestamps.
import type { CapturedEvent, UnreadableEvent } from '../log/types.js';
import { civilFromDays } from '../time/civil.js';
import { limitDistinctId } from './distinct-id.js';
import { isObject } from '../json.js';

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

// What the front end learns from a payload without building any event.
export interface CaptureScan {
  token: string | null;
  // The payload's events, as parsed: kept and dropped alike.
  rawEvents: unknown[];
  // Indices into rawEvents of the events dropped, ascending (null when none is).
  droppedAt: number[] | null;
  dropped: Partial<Record<DropReason, number>>;
  // Kept events, and how many of them carry no uuid of their own.
  kept: number;
  missingUuids: number;
  historical: boolean;
  // From the batch's sent_at or the `_` query parameter (ms), for clock-skew correction.
  sentAtMs: number | null;
}

// Everything buildEvents needs besides the payload; what a capture frame's header holds.
export interface BuildContext {
  projectId: number;
  nowMs: number;
  ip: string | null;
  sentAtMs: number | null;
  historical: boolean;
  droppedAt: readonly number[] | null;
  // The uuid of the n-th kept event that has none of its own (n counts from 0).
  uuid: (n: number) => string;
}

// PostHog replaces timestamps more than 23 hours in the future with `now`.
const FUTURE_LIMIT_MS = 23 * 3600 * 1000;
// The last instant a Date holds (ECMAScript's time range is ±8.64e15 ms).
const MAX_TIME_MS = 8.64e15;

// A `sent_at` in ms that can be written as a date, else null: the `_` query parameter is
// any run of digits, and a record whose sent_at cannot be formatted could not be read.
export function usableSentAt(ms: number | null): number | null {
  return ms !== null && ms >= 0 && ms <= MAX_TIME_MS ? ms : null;
}

export type Obj = Record<string, unknown>;

// The distinct id as sent, or null when there is none or it is blank. Non-strings are
// never blank once stringified (numbers, booleans, and objects as JSON).
export function rawDistinctId(ev: Obj, props: Obj | undefined): unknown {
  const raw = ev.distinct_id ?? ev.$distinct_id ?? props?.distinct_id;
  if (raw === undefined || raw === null) return null;
  if (typeof raw === 'string' && raw.trim().length === 0) return null;
  return raw;
}

function distinctIdOf(raw: unknown): string {
  return limitDistinctId(typeof raw === 'string' ? raw : typeof raw === 'object' ? JSON.stringify(raw) : String(raw));
}

// Date.prototype.toISOString for the times capture produces, formatted by hand:
// toISOString costs about a microsecond, once per event whose timestamp is corrected
// and once per request for `now`. Integral ms from 1970 through 9999 only (4-digit
// years); anything else goes to toISOString. Civil date from days after H. Hinnant.
// Built from character codes so the string is flat, not a rope of 14 pieces.
const MAX_FAST_MS = 253402300799999; // 9999-12-31T23:59:59.999Z
const ISO = Array.from('0000-00-00T00:00:00.000Z', (c) => c.charCodeAt(0));
function digits(at: number, n: number, width: number): void {
  for (let i = at + width - 1; i >= at; i--) {
    ISO[i] = 48 + (n % 10);
    n = Math.floor(n / 10);
  }
}
let lastIsoMs = NaN;
let lastIso = '';

export function isoString(ms: number): string {
  if (ms === lastIsoMs) return lastIso;
  if (!(ms >= 0 && ms <= MAX_FAST_MS) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / 86400000);
  let rest = ms - days * 86400000;
  const hours = Math.floor(rest / 3600000);
  rest -= hours * 3600000;
  const minutes = Math.floor(rest / 60000);
  rest -= minutes * 60000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  const { year, month, day } = civilFromDays(days);
  digits(0, year, 4);
  digits(5, month, 2);
  digits(8, day, 2);
  digits(11, hours, 2);
  digits(14, minutes, 2);
  digits(17, seconds, 2);
  digits(20, millis, 3);
  const iso = String.fromCharCode.apply(null, ISO);
  lastIsoMs = ms;
  lastIso = iso;
  return iso;
}

export function parseTime(v: unknown): number | null {
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
  return isoString(result);
}

function foldSet(ev: Obj, props: Obj, key: '$set' | '$set_once') {
  const top = ev[key];
  if (!isObject(top)) return;
  const inner = props[key];
  props[key] = isObject(inner) ? { ...top, ...inner } : top;
}

// The payload's list of events, as scanCapture found it, for a payload it accepted.
export function rawEventsOf(payload: unknown): unknown[] {
  if (Array.isArray(payload)) return payload;
  if (isObject(payload)) return 'batch' in payload ? (Array.isArray(payload.batch) ? payload.batch : []) : [payload];
  return [];
}

// The events of a scanned payload. Deterministic: the clock, the address and every
// generated uuid come from `ctx`. Changes the payload's property objects in place
// ($set folding, $ip), so it runs once per parsed payload. An event that cannot be
// built costs itself alone: it goes to `unreadable` when given (the log reader's case,
// src/capture/frames.ts), and is thrown otherwise.
export function buildEvents(rawEvents: readonly unknown[], ctx: BuildContext, unreadable?: UnreadableEvent[]): CapturedEvent[] {
  const { projectId, nowMs, ip, historical, droppedAt } = ctx;
  const sentAtMs = usableSentAt(ctx.sentAtMs);
  const nowIso = isoString(nowMs);
  const sentAtIso = sentAtMs !== null ? isoString(sentAtMs) : null;
  const events: CapturedEvent[] = [];
  let nextDrop = droppedAt !== null && droppedAt.length > 0 ? droppedAt[0] : -1;
  let d = 0;
  let generated = 0;
  for (let i = 0; i < rawEvents.length; i++) {
    if (i === nextDrop) {
      nextDrop = ++d < droppedAt!.length ? droppedAt![d] : -1;
      continue;
    }
    const raw = rawEvents[i] as Obj;
    // First, and whatever the event holds: every later event's generated uuid depends on it.
    const own = isObject(raw) && typeof raw.uuid === 'string' ? raw.uuid : null;
    let uuid: string | null = null;
    try {
      uuid = own !== null ? own.toLowerCase() : ctx.uuid(generated++);
      const props = isObject(raw.properties) ? raw.properties : undefined;
      const properties: Obj = props ?? {};
      foldSet(raw, properties, '$set');
      foldSet(raw, properties, '$set_once');
      if (properties.$ip === undefined && ip !== null) properties.$ip = ip;
      events.push({
        uuid,
        event: raw.event as string,
        distinct_id: distinctIdOf(rawDistinctId(raw, props)),
        properties,
        timestamp: eventTimestamp(raw, properties, nowMs, sentAtMs, nowIso),
        project_id: projectId,
        ip,
        now: nowIso,
        sent_at: sentAtIso,
        historical,
      });
    } catch (err) {
      if (!unreadable) throw err;
      unreadable.push(unreadableEvent(projectId, raw, uuid, err));
    }
  }
  return events;
}

// What is known of an event that could not be built, without touching anything that may throw.
export function unreadableEvent(projectId: number, raw: unknown, uuid: string | null, err: unknown): UnreadableEvent {
  const obj = isObject(raw) ? raw : null;
  const name = obj !== null && typeof obj.event === 'string' ? obj.event : null;
  const id = obj !== null && typeof obj.distinct_id === 'string' ? limitDistinctId(obj.distinct_id) : null;
  return { project_id: projectId, uuid, event: name, distinct_id: id, error: err instanceof Error ? err.message : String(err) };
}
