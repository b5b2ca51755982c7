// JSON request bodies of the management API, as DRF reads them: an empty body is an
// empty object, anything but an object is refused.
import { errors } from '../errors.js';
import type { HttpRequest } from './types.js';

// Python's names for JSON types, which DRF puts in its message.
export function pythonType(v: unknown): string {
  if (v === null) return 'NoneType';
  if (Array.isArray(v)) return 'list';
  if (typeof v === 'string') return 'str';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  return typeof v;
}

export function jsonObject(req: HttpRequest): Record<string, unknown> {
  if (req.body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(req.body.toString('utf8'));
  } catch (err) {
    throw errors.parseError((err as Error).message);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw errors.notADictionary(pythonType(value));
  return value as Record<string, unknown>;
}
