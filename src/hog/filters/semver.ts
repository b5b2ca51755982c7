// Version ranges of the semver_tilde, semver_caret and semver_wildcard operators, as the
// [lower, upper) bounds PostHog's filter compiler computes at compile time.

function integer(text: string | undefined): number {
  if (text === undefined || !/^\s*[+-]?\d+\s*$/.test(text)) throw new RangeError('not an integer');
  return parseInt(text, 10);
}

/** major, minor, patch of `value` without its pre-release suffix; missing parts are 0. */
function parts(value: string): [string, string, string] {
  const base = value.split('-')[0].split('.');
  if (base.length < 1 || base[0] === '') throw new RangeError('invalid version');
  const major = base[0];
  const minor = base.length > 1 ? base[1] : '0';
  const patch = base.length > 2 ? base[2] : '0';
  integer(major);
  integer(minor);
  integer(patch);
  return [major, minor, patch];
}

/** ~1.2.3 is >=1.2.3 <1.3.0; a bare ~1 is >=1.0.0 <2.0.0. */
export function tildeBounds(value: string): [string, string] {
  const [major, minor, patch] = parts(value);
  if (value.split('-')[0].split('.').length < 2) return [`${major}.0.0`, `${integer(major) + 1}.0.0`];
  return [`${major}.${minor}.${patch}`, `${major}.${integer(minor) + 1}.0`];
}

/** ^1.2.3 is >=1.2.3 <2.0.0; the leftmost non-zero part sets the upper bound. */
export function caretBounds(value: string): [string, string] {
  const [major, minor, patch] = parts(value);
  const lower = `${major}.${minor}.${patch}`;
  if (integer(major) > 0) return [lower, `${integer(major) + 1}.0.0`];
  if (integer(minor) > 0) return [lower, `0.${integer(minor) + 1}.0`];
  return [lower, `0.0.${integer(patch) + 1}`];
}

/** 1.* is >=1.0.0 <2.0.0, 1.2.* is >=1.2.0 <1.3.0, 1.2.3.* is >=1.2.3.0 <1.2.4.0. */
export function wildcardBounds(pattern: string): [string, string] {
  // Python's rstrip(".*"): trailing dots and stars, in any order.
  const value = pattern.replace(/[.*]+$/, '');
  if (value === '') throw new RangeError('invalid wildcard');
  const p = value.split('-')[0].split('.');
  if (p.length === 1) return [`${p[0]}.0.0`, `${integer(p[0]) + 1}.0.0`];
  if (p.length === 2) {
    integer(p[0]);
    return [`${p[0]}.${p[1]}.0`, `${p[0]}.${integer(p[1]) + 1}.0`];
  }
  integer(p[0]);
  integer(p[1]);
  return [`${p[0]}.${p[1]}.${p[2]}.0`, `${p[0]}.${p[1]}.${integer(p[2]) + 1}.0`];
}
