// Flag regexes are user input run against user input on the hot path, so they go through
// RE2 (linear time, no catastrophic backtracking) instead of the backtracking V8 engine.
// PostHog caps its backtracking engine instead; either way a hostile pattern cannot stall
// evaluation. Constructs RE2 lacks (backreferences, lookaround) make the pattern invalid,
// and an invalid pattern matches nothing, as in PostHog.

import { RE2JS } from 're2js';

export interface SafeRegex {
  test(input: string): boolean;
}

/** The compiled pattern, or undefined when RE2 cannot compile it. */
export function compileSafeRegex(pattern: string): SafeRegex | undefined {
  try {
    return RE2JS.compile(pattern);
  } catch {
    return undefined;
  }
}
