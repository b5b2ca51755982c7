// JSON request bodies of the management API, as DRF reads them: an empty body is an
// empty object, anything but an object is refused, and so is one nested deeper than
// anything the API stores (docs/decisions/0028).
import { errors } from '../errors.js';
import { measureJson, TOO_DEEP } from '../json.js';
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

// Levels below a body's top object. PostHog's deepest real values (cohort filter groups,
// insight queries, hog function inputs) nest a dozen or so; past a few thousand,
// msgpackr (storing), JSON.stringify (flag payloads) and recursive validators (cohort
// groups) overflow the stack, which answered 500.
export const MAX_BODY_LEVELS = 100;

function checkDepth(body: Record<string, unknown>): void {
  for (const field in body) {
    if (measureJson(body[field], MAX_BODY_LEVELS) === TOO_DEEP) throw errors.tooDeep(MAX_BODY_LEVELS, field);
  }
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
  checkDepth(value as Record<string, unknown>);
  return value as Record<string, unknown>;
}
