// The pure STL functions the straight slice (./straight-slice.ts) answers itself, as
// @posthog/hogvm's STL computes them, on the plain values the slice holds (a dict is a plain
// object there, a Map in the VM). NOT_PURE for anything else (another function, an argument
// whose printing or emptiness might differ): the VM then runs the program from the start.

import { regexMatch } from './regex.js';

export const NOT_PURE = Symbol('not a pure call');

// Past these the host's checked concat (./checked-stl.ts) looks at the thread's heap: the VM's.
const MAX_CONCAT_CHARS = 256 * 1024;
const MAX_CONCAT_ARGS = 1024;

// concat prints each argument; only strings and nulls print identically without the VM's printer.
function concat(args: unknown[]): unknown {
  if (args.length > MAX_CONCAT_ARGS) return NOT_PURE;
  let out = '';
  for (const arg of args) {
    if (arg === null) continue;
    if (typeof arg !== 'string') return NOT_PURE;
    out += arg;
    if (out.length > MAX_CONCAT_CHARS) return NOT_PURE;
  }
  return out;
}

// empty's rules, with a plain object standing for the VM's Map (its size is its own keys).
function empty(args: unknown[]): unknown {
  if (args.length !== 1) return NOT_PURE;
  const value = args[0];
  if (typeof value === 'object') {
    if (value === null) return true;
    if (Array.isArray(value)) return value.length === 0;
    return Object.keys(value).length === 0;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return false;
  return !value;
}

// Characters a LIKE pattern's text keeps literally in the regular expression it becomes.
const REGEX_SPECIAL = /[-/\\^$*+?.()|[\]{}]/g;

/**
 * LIKE and ILIKE as the VM runs them with the host's RE2 (./regex.ts): the pattern's regex
 * characters escaped, `%` any run and `_` any one character, matched anywhere in the text
 * (the VM does not anchor it), `(?i)` for ILIKE. null if RE2 refuses the pattern (the VM's error).
 */
export function likeMatch(text: string, pattern: string, caseInsensitive: boolean): boolean | null {
  const regex = pattern.replace(REGEX_SPECIAL, '\\$&').replaceAll('%', '.*').replaceAll('_', '.');
  try {
    return regexMatch((caseInsensitive ? '(?i)' : '') + regex, text);
  } catch {
    return null;
  }
}

/** The result of the STL function `name` on `args`, or NOT_PURE. */
export function pureCall(name: string, args: unknown[]): unknown {
  switch (name) {
    case 'concat':
      return concat(args);
    case 'empty':
      return empty(args);
    case 'startsWith': {
      const [text, prefix] = args;
      return typeof text === 'string' && typeof prefix === 'string' && text.startsWith(prefix);
    }
    case 'length': {
      // A dict (a Map in the VM) has no length there; null is the VM's error.
      const value = args[0];
      return typeof value === 'string' || Array.isArray(value) ? value.length : NOT_PURE;
    }
    case 'toString':
      // A string prints as itself; anything else through the VM's printer.
      return args.length === 1 && typeof args[0] === 'string' ? args[0] : NOT_PURE;
    case 'notEmpty': {
      const isEmpty = empty(args);
      return isEmpty === NOT_PURE ? NOT_PURE : !isEmpty;
    }
    default:
      return NOT_PURE;
  }
}
