// postHogCapture(event) in a destination's program, as PostHog's CDP has it: the event is
// captured into the function's own project, through the capture path (the destinations'
// main thread appends it, ../internal/captured-events.ts), so it is validated and logged
// like any event. PostHog's rules: `event` must be a string; the distinct id is the call's
// or the triggering event's; one call per invocation; and an event that is itself the
// product of ten such captures in a row is not captured again (a warning in the log), each
// capture counting one more in its `$hog_function_execution_count` property, so functions
// capturing the events that trigger them cannot loop without end. The timestamp is when
// the program ran.

import { isObject } from '../../json.js';

// An event as the program captured it, before capture builds it.
export interface CapturedRequest {
  event: string;
  distinct_id: string;
  properties: Record<string, unknown>;
  timestamp: string;
}

export const MAX_CAPTURE_CHAIN = 10;

const NONE: readonly never[] = [];

// The slice running on this thread (the VM runs one program at a time, synchronously), so
// the host function is one function for all slices and a slice that captures nothing
// allocates nothing for it.
let trigger: Record<string, unknown> | null = null;
let soFar = 0;
let captured: CapturedRequest[] | null = null;
let warning: string | null = null;

/** Starts a slice of an invocation that captured `capturedSoFar` events in earlier slices. */
export function beginCapture(globals: Record<string, unknown>, capturedSoFar: number): void {
  trigger = isObject(globals.event) ? globals.event : null;
  soFar = capturedSoFar;
  captured = null;
  warning = null;
}

/** What the slice captured, and the warning of a capture refused (else null). */
export function endCapture(): { captured: readonly CapturedRequest[]; warning: string | null } {
  const out = { captured: captured ?? NONE, warning };
  trigger = null;
  captured = null;
  warning = null;
  return out;
}

/** The host function; throws PostHog's errors, which fail the program. */
export function postHogCapture(call: Record<string, unknown>): void {
  if (!isObject(call) || typeof call.event !== 'string') throw new Error("[HogFunction] - postHogCapture call missing 'event' property");
  const distinctId = call.distinct_id || trigger?.distinct_id;
  if (!distinctId) throw new Error("[HogFunction] - postHogCapture call missing 'distinct_id' property");
  if (soFar + (captured?.length ?? 0) > 0 || warning !== null) {
    throw new Error('postHogCapture was called more than once. Only one call is allowed per function');
  }
  const properties: Record<string, unknown> = isObject(call.properties) ? { ...call.properties } : {};
  if (trigger !== null) {
    const given = isObject(trigger.properties) ? trigger.properties.$hog_function_execution_count : undefined;
    const count = typeof given === 'number' ? given : 0;
    if (count >= MAX_CAPTURE_CHAIN) {
      warning = `postHogCapture was called from an event that already executed this function ${MAX_CAPTURE_CHAIN} times previously. ` +
        'To prevent unbounded infinite loops, the event was not captured.';
      return;
    }
    properties.$hog_function_execution_count = count + 1;
  }
  (captured ??= []).push({ event: call.event, distinct_id: String(distinctId), properties, timestamp: new Date().toISOString() });
}
