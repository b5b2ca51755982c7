// DRF's limit/offset pagination: {count, next, previous, results} with absolute URLs.
import { errors } from '../errors.js';
import type { HttpRequest } from './types.js';

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export function nonNegative(req: HttpRequest, name: string, fallback: number): number {
  const raw = req.query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw errors.validation('A valid integer is required.', name, 'invalid');
  return Number(raw);
}

export function pageUrl(req: HttpRequest, set: Record<string, number | null>): string {
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

export function paginate<T>(req: HttpRequest, items: readonly T[], defaultLimit = 100): Page<T> {
  const limit = Math.max(1, nonNegative(req, 'limit', defaultLimit));
  const offset = nonNegative(req, 'offset', 0);
  const next = offset + limit < items.length ? pageUrl(req, { limit, offset: offset + limit }) : null;
  let previous: string | null = null;
  if (offset > 0) previous = offset - limit > 0 ? pageUrl(req, { limit, offset: offset - limit }) : pageUrl(req, { limit, offset: null });
  return { count: items.length, next, previous, results: items.slice(offset, offset + limit) };
}
