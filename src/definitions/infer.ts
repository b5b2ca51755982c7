// The type PostHog's ingestion gives a property on first sight (its property-defs service's
// detection, as facts): by the key first (campaign, feature flag and survey keys are always
// text; a key that names a time holding a date or a recent unix time is a date), then by the
// value (numbers, booleans and the texts "true"/"false", texts in a date format, other text).
// null, objects and arrays give no type. Pure: the clock is a parameter.
import type { PropertyType } from './records.js';

// Keys containing one of these name a time ("timestamp" contains "time").
const TIME_WORDS = ['time', 'date', '_at', '-at', 'createdat', 'updatedat'];

// A unix time (whole seconds) no older than about six months before now reads as a date.
const SIX_MONTHS_S = 15_768_000;

// yyyy-mm-dd or dd-mm-yyyy (either separator / or -), optionally followed by a time of day.
const DATE_PREFIX = /^(?:\d{4}[/-][0-2]\d[/-][0-3]\d|[0-2]\d[/-][0-3]\d[/-]\d{4})(?:[ T][0-2]\d:[0-6]\d:[0-6]\d.*)?$/;
// RFC 3339 with a lower-case separator (the prefix pattern takes the rest).
const RFC3339 = /^\d{4}-\d\d-\d\d[tT ]\d\d:\d\d:\d\d(?:\.\d+)?(?:[zZ]|[+-]\d\d:\d\d)$/;
// RFC 2822: "Tue, 1 Jul 2003 10:52:37 +0200".
const RFC2822 = /^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),\s*)?\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+\d{2,4}\s+\d\d:\d\d(?::\d\d)?\s+(?:[+-]\d{4}|UT|GMT|[ECMP][SD]T|[A-IK-Za-ik-z])$/;

export function isLikelyDate(text: string): boolean {
  return DATE_PREFIX.test(text) || RFC3339.test(text) || RFC2822.test(text);
}

function namesATime(key: string): boolean {
  for (const word of TIME_WORDS) if (key.includes(word)) return true;
  return false;
}

// Only a value of one of these kinds can be given a type.
export function typable(value: unknown): boolean {
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean';
}

export function detectPropertyType(key: string, value: unknown, nowMs: number): PropertyType | null {
  const k = key.toLowerCase();
  // The first value of these often looks like a number or a boolean where later ones do not.
  if (k.startsWith('utm_') || k.startsWith('$initial_utm_') || k.startsWith('$feature/') || k === '$feature_flag_response' || k.startsWith('$survey_response')) {
    return 'String';
  }
  if (typeof value === 'string') {
    if (namesATime(k) && isLikelyDate(value)) return 'DateTime';
    const s = value.trim();
    if (s === 'true' || s === 'false' || s === 'TRUE' || s === 'FALSE') return 'Boolean';
    return isLikelyDate(s) ? 'DateTime' : 'String';
  }
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= 0 && namesATime(k) && value >= Math.floor(nowMs / 1000) - SIX_MONTHS_S) return 'DateTime';
    return 'Numeric';
  }
  if (typeof value === 'boolean') return 'Boolean';
  return null;
}

// PostHog drops definitions whose name (or event name) is longer than half its 400-character
// column, counted in bytes.
export function fitsName(name: string): boolean {
  return name.length <= 66 || Buffer.byteLength(name) <= 200;
}
