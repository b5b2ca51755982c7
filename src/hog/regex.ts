// Regular expressions for Hog (`=~`, `match`, `extractRegex`, like): RE2 semantics through
// re2js, as PostHog runs them through RE2. Linear time, so a hostile pattern cannot stall
// a worker. Case-insensitive operators reach here with PostHog's `(?i)` prefix, which RE2
// understands; a pattern RE2 cannot compile throws, failing the program as in PostHog.

import { RE2JS } from 're2js';

// Programs run the same few patterns over and over; compile each once per thread.
const CACHE_LIMIT = 512;
const cache = new Map<string, RE2JS>();

function compiled(pattern: string): RE2JS {
  let regex = cache.get(pattern);
  if (regex === undefined) {
    regex = RE2JS.compile(pattern);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(pattern, regex);
  }
  return regex;
}

/** Whether `pattern` matches anywhere in `value`. */
export function regexMatch(pattern: string, value: string): boolean {
  return compiled(String(pattern)).test(String(value));
}

/** The first capture group of the first match (the whole match without groups), or ''. */
export function regexExtract(pattern: string, value: string): string {
  const regex = compiled(String(pattern));
  const matcher = regex.matcher(String(value));
  if (!matcher.find()) return '';
  return (regex.groupCount() > 0 ? matcher.group(1) : matcher.group(0)) ?? '';
}
