// UTC offsets of an IANA time zone over a span of time, from the platform's Intl data.
// A span is cut into segments of constant offset (DST transitions between them), so a
// query can turn any instant of the span into local wall-clock time with plain integer
// arithmetic instead of a per-row time zone lookup.

export interface OffsetSegment {
  /** First instant (ms since the epoch) with this offset; -Infinity for the first segment. */
  readonly fromMs: number;
  /** Local time minus UTC, in ms. */
  readonly offsetMs: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric',
      hour: 'numeric', minute: 'numeric', second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** True when the platform knows the zone. */
export function isKnownZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset at an instant, in ms (whole seconds). */
export function offsetAt(zone: string, ms: number): number {
  if (zone === 'UTC' || zone === 'Etc/UTC') return 0;
  const whole = Math.floor(ms / 1000) * 1000;
  const p: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(whole))) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return asUtc - whole;
}

const PROBE_MS = 6 * 3600_000;

/**
 * The offset segments covering [fromMs, toMs]. Offsets are probed every six hours and each
 * change is narrowed to the second by bisection (zones change offset at most a few times a
 * year, and never twice within six hours).
 */
export function offsetSegments(zone: string, fromMs: number, toMs: number): OffsetSegment[] {
  const segments: OffsetSegment[] = [{ fromMs: -Infinity, offsetMs: offsetAt(zone, fromMs) }];
  if (zone === 'UTC' || zone === 'Etc/UTC') return segments;
  let at = fromMs;
  let offset = segments[0].offsetMs;
  while (at < toMs) {
    const next = Math.min(at + PROBE_MS, toMs);
    const nextOffset = offsetAt(zone, next);
    if (nextOffset !== offset) {
      let lo = at;
      let hi = next;
      while (hi - lo > 1000) {
        const mid = Math.floor((lo + hi) / 2000) * 1000;
        if (mid <= lo) break;
        if (offsetAt(zone, mid) === offset) lo = mid;
        else hi = mid;
      }
      segments.push({ fromMs: hi, offsetMs: nextOffset });
      offset = nextOffset;
    }
    at = next;
  }
  return segments;
}

/** Offset of the segment holding an instant. */
export function segmentOffset(segments: readonly OffsetSegment[], ms: number): number {
  let offset = segments[0].offsetMs;
  for (const s of segments) {
    if (s.fromMs <= ms) offset = s.offsetMs;
    else break;
  }
  return offset;
}

/**
 * The instant whose local wall-clock time is `localMs`. A wall-clock time skipped by a
 * transition (spring forward) maps to the instant the clocks jumped past it; a repeated
 * one (fall back) to its first occurrence.
 */
export function instantOfLocal(segments: readonly OffsetSegment[], localMs: number): number {
  let best: number | undefined;
  for (let i = 0; i < segments.length; i++) {
    const candidate = localMs - segments[i].offsetMs;
    const start = segments[i].fromMs;
    const end = i + 1 < segments.length ? segments[i + 1].fromMs : Infinity;
    if (candidate >= start && candidate < end && (best === undefined || candidate < best)) best = candidate;
  }
  if (best !== undefined) return best;
  // In a gap: the first instant after it.
  for (let i = 1; i < segments.length; i++) {
    if (localMs - segments[i - 1].offsetMs >= segments[i].fromMs && localMs - segments[i].offsetMs < segments[i].fromMs) {
      return segments[i].fromMs;
    }
  }
  return localMs - segments[segments.length - 1].offsetMs;
}
