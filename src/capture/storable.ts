// Keys capture refuses because the stores cannot keep them as sent (docs/decisions/0025).
// msgpackr, which LMDB encodes every value with, reads a key "__proto__" back as
// "__proto_", and calls `value.toJSON()` on an object whose `constructor` is not Object
// (a key "constructor" is enough), failing with "value.toJSON is not a function": such
// an event would be acknowledged and then not stored. Capture answers 400 instead.
//
// Checking every key of every request would cost the hot path a walk of each payload,
// so the JSON text is searched first (native memmem): a key can only be one of these
// if its name, or an escape of a printable ASCII character (\u0040–\u007f, which no
// ordinary JSON writer emits), appears in the text. Only then are the events walked.
import { isObject } from '../json.js';

const FORBIDDEN = new Set(['__proto__', 'toJSON']);
const TO_JSON = Buffer.from('toJSON');
const PROTO = Buffer.from('__proto__');
const ESCAPE = Buffer.from('\\u00');

function mayNameForbiddenKey(text: Buffer): boolean {
  if (text.indexOf(TO_JSON) !== -1 || text.indexOf(PROTO) !== -1) return true;
  for (let at = text.indexOf(ESCAPE); at !== -1; at = text.indexOf(ESCAPE, at + 4)) {
    const c = text[at + 4];
    if (c >= 0x34 && c <= 0x37) return true;
  }
  return false;
}

// The first key of `value`, at any depth, that cannot be stored; iterative, so any depth
// JSON.parse produced is walked without recursion.
function forbiddenKeyIn(value: unknown): string | null {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) if (typeof v[i] === 'object' && v[i] !== null) stack.push(v[i]);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (FORBIDDEN.has(key)) return key;
      const child = (v as Record<string, unknown>)[key];
      if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return null;
}

export interface UnstorableKey {
  key: string;
  // Index of the event in the request.
  event: number;
}

// The first key of the request's events that the stores cannot keep, or null. `text` is
// the JSON the events were parsed from.
export function findUnstorableKey(text: Buffer, rawEvents: readonly unknown[]): UnstorableKey | null {
  if (!mayNameForbiddenKey(text)) return null;
  for (let i = 0; i < rawEvents.length; i++) {
    const raw = rawEvents[i];
    if (!isObject(raw)) continue;
    // What of an event is stored: its properties, and $set / $set_once folded into them.
    const key = forbiddenKeyIn(raw.properties) ?? forbiddenKeyIn(raw.$set) ?? forbiddenKeyIn(raw.$set_once);
    if (key !== null) return { key, event: i };
  }
  return null;
}
