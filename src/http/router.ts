// Route table: static paths are one Map lookup, patterns with `:param` segments are
// matched segment by segment. Trailing slashes are optional everywhere, as in PostHog.
import type { Route } from './types.js';

interface PatternRoute {
  segments: string[];
  route: Route;
}

export interface RouteMatch {
  route: Route | null;
  params: Record<string, string>;
  // Set when the path exists but not for this method (405 rather than 404).
  pathExists: boolean;
}

const EMPTY: Record<string, string> = Object.freeze({}) as Record<string, string>;

// The longest path parameter any route takes is a project API key (under 50
// characters); ids are uuids, numbers, slugs. A longer segment names nothing that can
// exist, so it matches no route and the path answers 404 Not found, as PostHog answers
// an id it cannot find, before any handler makes an LMDB key of it (keys hold at most
// 1,978 bytes: a 10,000-character id failed with a 500; docs/decisions/0028).
export const MAX_PARAM_LENGTH = 200;

function trimSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 47) end--;
  return end === path.length ? path : path.slice(0, end);
}

function safeDecode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}

export function createRouter(routes: readonly Route[]) {
  const exact = new Map<string, Route[]>();
  const patterns: PatternRoute[] = [];
  for (const route of routes) {
    const p = trimSlashes(route.pattern);
    if (p.includes(':')) patterns.push({ segments: p.split('/'), route });
    else exact.set(p, [...(exact.get(p) ?? []), route]);
  }

  function match(method: string, rawPath: string): RouteMatch {
    const path = trimSlashes(rawPath);
    const candidates = exact.get(path);
    if (candidates) {
      for (const r of candidates) if (r.methods.includes(method)) return { route: r, params: EMPTY, pathExists: true };
    }
    let pathExists = candidates !== undefined;
    const parts = path.split('/');
    for (const { segments, route } of patterns) {
      if (segments.length !== parts.length) continue;
      let params: Record<string, string> | null = {};
      for (let i = 0; i < segments.length; i++) {
        const seg = segments[i];
        if (seg.charCodeAt(0) === 58) {
          if (parts[i] === '') { params = null; break; }
          const value = safeDecode(parts[i]);
          if (value === null || value.length > MAX_PARAM_LENGTH) { params = null; break; }
          params[seg.slice(1)] = value;
        } else if (seg !== parts[i]) { params = null; break; }
      }
      if (!params) continue;
      if (route.methods.includes(method)) return { route, params, pathExists: true };
      pathExists = true;
    }
    return { route: null, params: EMPTY, pathExists };
  }

  return { match, routes };
}

export type Router = ReturnType<typeof createRouter>;
