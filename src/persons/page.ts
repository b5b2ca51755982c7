// limit/offset pages over a lazily produced list: the scan stops once the page is full
// and one more match proves there is a next page, unless the total is asked for.
import { nonNegative, pageUrl } from '../http/paginate.js';
import type { HttpRequest } from '../http/types.js';

interface LazyPage<T> {
  count?: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const DEFAULT_PAGE_SIZE = 100;

export function lazyPage<T>(req: HttpRequest, items: Iterable<T>, withCount: boolean): LazyPage<T> {
  const limit = Math.max(1, nonNegative(req, 'limit', DEFAULT_PAGE_SIZE));
  const offset = nonNegative(req, 'offset', 0);
  const results: T[] = [];
  let seen = 0;
  for (const item of items) {
    if (seen >= offset && seen < offset + limit) results.push(item);
    seen++;
    if (seen > offset + limit && !withCount) break;
  }
  const next = seen > offset + limit ? pageUrl(req, { limit, offset: offset + limit }) : null;
  let previous: string | null = null;
  if (offset > 0) previous = offset - limit > 0 ? pageUrl(req, { limit, offset: offset - limit }) : pageUrl(req, { limit, offset: null });
  return { ...(withCount ? { count: seen } : {}), next, previous, results };
}
