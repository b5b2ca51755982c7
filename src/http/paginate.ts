// The one paging helper of the management API: DRF's limit/offset pagination, {count,
// next, previous, results} with absolute URLs, over a list or over a lazily produced
// one. A lazy list is scanned only until the page is full and one more item proves a
// next page, unless the total is asked for; the scan and the page's links are separate
// steps, so a scan can run in a query worker (src/persons/list.ts) while the links are
// made from the request. Cursor pages (the events API) build their links with pageUrl.
import { errors } from '../errors.js';
import type { HttpRequest } from './types.js';

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

// A page without its count when the total was not asked for.
export type LazyPage<T> = Omit<Page<T>, 'count'> & { count?: number };

export interface PageWindow {
  offset: number;
  limit: number;
}

export interface WindowScan<T> {
  results: T[];
  // Items seen: all of them when counting, else at most one past the window.
  seen: number;
}

const DEFAULT_PAGE_SIZE = 100;

export function nonNegative(req: HttpRequest, name: string, fallback: number): number {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw errors.validation('A valid integer is required.', name, 'invalid');
  return Number(raw);
}

// This request's URL with some query parameters set (null: removed), absolute as the
// client reached it.
export function pageUrl(req: HttpRequest, set: Record<string, string | number | null>): string {
  const params = new URLSearchParams(req.query);
  for (const [k, v] of Object.entries(set)) {
    if (v === null) params.delete(k);
    else params.set(k, String(v));
  }
  const host = req.headers['x-forwarded-host'] ?? req.headers.host ?? 'localhost';
  const proto = req.headers['x-forwarded-proto'] ?? 'http';
  const qs = params.toString();
  return `${proto}://${host}${req.path}${qs ? `?${qs}` : ''}`;
}

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

// A page of a list already in memory, with its count.
export function paginate<T>(req: HttpRequest, items: readonly T[]): Page<T> {
  const window = pageWindow(req);
  const { count = items.length, ...page } = pageOf(req, window, scanWindow(items, window, true), true);
  return { count, ...page };
}
