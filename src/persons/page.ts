// limit/offset pages over a lazily produced list: the scan stops once the page is full
// and one more match proves there is a next page, unless the total is asked for. The
// scan and the page's links are separate steps, so a scan can run in a query worker
// (src/persons/list.ts) while the links are made from the request.
import { nonNegative, pageUrl } from '../http/paginate.js';
import type { HttpRequest } from '../http/types.js';

export interface PageWindow {
  offset: number;
  limit: number;
}

export interface WindowScan<T> {
  results: T[];
  // Items seen: all of them when counting, else at most one past the window.
  seen: number;
}

interface LazyPage<T> {
  count?: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

const DEFAULT_PAGE_SIZE = 100;

export function pageWindow(req: HttpRequest): PageWindow {
  return { limit: Math.max(1, nonNegative(req, 'limit', DEFAULT_PAGE_SIZE)), offset: nonNegative(req, 'offset', 0) };
}

export function scanWindow<T>(items: Iterable<T>, { offset, limit }: PageWindow, withCount: boolean): WindowScan<T> {
  const results: T[] = [];
  let seen = 0;
  for (const item of items) {
    if (seen >= offset && seen < offset + limit) results.push(item);
    seen++;
    if (seen > offset + limit && !withCount) break;
  }
  return { results, seen };
}

export function pageOf<T>(req: HttpRequest, { offset, limit }: PageWindow, scan: WindowScan<T>, withCount: boolean): LazyPage<T> {
  const next = scan.seen > offset + limit ? pageUrl(req, { limit, offset: offset + limit }) : null;
  let previous: string | null = null;
  if (offset > 0) previous = offset - limit > 0 ? pageUrl(req, { limit, offset: offset - limit }) : pageUrl(req, { limit, offset: null });
  return { ...(withCount ? { count: scan.seen } : {}), next, previous, results: scan.results };
}
