// A hog function's inputs validated against its inputs_schema and compiled, as PostHog's
// InputsSerializer does: values are checked per schema type, templated values get
// bytecode, and each input gets an `order` so inputs that read other inputs
// (`{inputs.url}`) are evaluated after them.

import { HogCompileError } from './errors.js';
import { compileTemplateValue } from './templates.js';

export interface InputSchemaItem {
  key: string;
  type: string;
  required?: boolean;
  default?: unknown;
  secret?: boolean;
  /** Hog templating (default), "liquid" (not compiled here) or false (the value is used as it is). */
  templating?: boolean | 'hog' | 'liquid';
  [other: string]: unknown;
}

export interface CompiledInput {
  /** Absent when the input was sent as null (PostHog leaves null fields out). */
  value?: unknown;
  templating?: 'hog' | 'liquid';
  /** Bytecode in the value's shape (one program per string); absent when not templated. */
  bytecode?: unknown;
  /** Evaluation position: an input comes after the inputs it reads. */
  order: number;
}

/** `key` null: the error concerns the inputs as a whole (a dependency cycle). */
export interface InputError {
  key: string | null;
  message: string;
}

export type InputsResult =
  | { ok: true; inputs: Record<string, CompiledInput> }
  | { ok: false; errors: InputError[] };

export interface InputsOptions {
  /** The function's type (destination, transformation, ...): transformations' templates may read less. */
  functionType?: string;
  /** Stored values of secret inputs, kept when the request sends the mask ({secret: true}) or nothing. */
  storedSecrets?: Record<string, unknown>;
}

/** What the UI shows in place of a stored secret; never a value. */
export const MASKED_SECRET_VALUE = '********';

const TEMPLATED_TYPES = new Set([
  'string', 'boolean', 'dictionary', 'json', 'email', 'native_email', 'posthog_ticket_tags',
  'customer_analytics_account_properties', 'customer_analytics_account_relationships',
]);

class InputInvalid extends Error {}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v);

// Python's truthiness, which PostHog's checks use.
function truthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (isDict(v)) return Object.keys(v).length > 0;
  return Boolean(v);
}

function containsLiquid(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('{{');
  if (Array.isArray(value)) return value.some(containsLiquid);
  if (isDict(value)) return Object.values(value).some(containsLiquid);
  return false;
}

function checkType(schema: InputSchemaItem, value: unknown, templating: unknown): void {
  const fail = (message: string) => {
    throw new InputInvalid(message);
  };
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') fail('Value must be a string.');
      break;
    case 'number':
      // Python's int and float include booleans.
      if (typeof value !== 'number' && typeof value !== 'boolean') fail('Value must be a number.');
      break;
    case 'boolean':
      if (schema.templating ?? true) {
        if (typeof value !== 'boolean' && typeof value !== 'string') fail('Value must be a boolean or a template string.');
        if (typeof value === 'string' && templating === 'liquid') {
          fail('Liquid templating is not supported for boolean fields. Use Hog templating instead.');
        }
      } else if (typeof value !== 'boolean') {
        fail('Value must be a boolean.');
      }
      break;
    case 'dictionary':
    case 'customer_analytics_account_properties':
    case 'customer_analytics_account_relationships':
      if (!isDict(value)) fail('Value must be a dictionary.');
      break;
    case 'integration':
      if (!isInt(value)) fail('Value must be an Integration ID.');
      break;
    case 'integration_multi':
      if (!Array.isArray(value) || !value.every(isInt)) fail('Value must be a list of Integration IDs.');
      break;
    case 'email':
    case 'native_email': {
      if (!isDict(value)) fail('Value must be an email object.');
      const email = value as Record<string, unknown>;
      const missing = ['from', 'to', 'subject'].filter((k) => !truthy(email[k])).map((k) => `'${k}'`);
      if (!truthy(email.text) && !truthy(email.html)) missing.push("either 'text' or 'html'");
      if (missing.length > 0) fail(`Missing ${missing.length === 1 ? 'value' : 'values'} for ${missing.join(', ')}.`);
      break;
    }
    case 'non_failure_status_codes':
      if (!Array.isArray(value)) fail('Value must be a list of status codes.');
      for (const entry of value as unknown[]) {
        if (!isInt(entry) && typeof entry !== 'string') {
          fail("Entries must be integers between 400 and 599 or wildcards '4xx' or '5xx'.");
        }
        if (isInt(entry) && !((entry as number) >= 400 && (entry as number) <= 599)) {
          fail('Status code numbers must be between 400 and 599.');
        }
        if (typeof entry === 'string' && !/^[45]xx$/i.test(entry)) fail("Wildcards must be '4xx' or '5xx'.");
      }
      break;
    default:
  }
}

interface Validated {
  value?: unknown;
  templating?: 'hog' | 'liquid';
  bytecode?: unknown;
  deps: Set<string>;
}

function validateItem(schema: InputSchemaItem, item: Record<string, unknown>, options: InputsOptions): Validated {
  const templating = item.templating;
  if (templating !== undefined && templating !== 'hog' && templating !== 'liquid') {
    throw new InputInvalid(`"${String(templating)}" is not a valid choice.`);
  }
  const out: Validated = { deps: new Set() };
  if ('value' in item) out.value = item.value;
  if (templating !== undefined) out.templating = templating;
  const value = item.value;
  if (schema.required && (value === null || value === undefined || value === '')) throw new InputInvalid('This field is required.');
  if (!truthy(value)) return out;
  checkType(schema, value, templating);
  if ((schema.templating ?? true) && templating !== 'liquid' && TEMPLATED_TYPES.has(schema.type)) {
    let source = value;
    if ((schema.type === 'email' || schema.type === 'native_email') && isDict(value)) {
      source = Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'design'));
    }
    try {
      out.bytecode = compileTemplateValue(source, out.deps, options.functionType);
    } catch (err) {
      if (!(err instanceof HogCompileError)) throw err;
      throw new InputInvalid(containsLiquid(value)
        ? 'Invalid template: this field uses single-curly templating like {person.properties.email}. Liquid-style ' +
          `{{ ... }} syntax is not supported here. (${err.message})`
        : `Invalid template: ${err.message}`);
    }
  }
  return out;
}

/** Kahn's order over "reads" edges, ties in schema order; null when the inputs read each other in a cycle. */
function dependencyOrder(keys: string[], deps: Map<string, string[]>): string[] | null {
  const waiting = new Map(keys.map((k) => [k, deps.get(k)!.length]));
  const queue = keys.filter((k) => waiting.get(k) === 0);
  const sorted: string[] = [];
  while (queue.length > 0) {
    const current = queue.shift()!;
    sorted.push(current);
    for (const k of keys) {
      if (deps.get(k)!.includes(current)) {
        const left = waiting.get(k)! - 1;
        waiting.set(k, left);
        if (left === 0) queue.push(k);
      }
    }
  }
  return sorted.length === keys.length ? sorted : null;
}

/**
 * Validates and compiles `inputs` against `schema`. Keys not in the schema are dropped,
 * inputs without a value are left out, and the result lists inputs in evaluation order.
 */
export function compileTemplateInputs(
  schema: readonly InputSchemaItem[],
  inputs: Record<string, unknown> | null | undefined,
  options: InputsOptions = {},
): InputsResult {
  const errors: InputError[] = [];
  const valid = new Map<string, Validated>();
  for (const item of schema) {
    const key = String(item.key);
    const given = inputs?.[key];
    let input: unknown = truthy(given) ? given : {};
    if (item.secret) {
      const masked = isDict(input) && truthy(input.secret) && (!('value' in input) || input.value === MASKED_SECRET_VALUE);
      if (masked || (isDict(input) && Object.keys(input).length === 0)) {
        const stored = options.storedSecrets?.[key];
        if (truthy(stored)) {
          input = stored;
        } else if (masked) {
          errors.push({ key, message: 'No value is saved for this secret input. Enter the value again.' });
          continue;
        }
      }
    }
    if (!isDict(input)) {
      errors.push({ key, message: `Invalid data. Expected a dictionary, but got ${Array.isArray(input) ? 'list' : typeof input === 'string' ? 'str' : typeof input === 'number' ? (Number.isInteger(input) ? 'int' : 'float') : 'bool'}.` });
      continue;
    }
    let entry: Record<string, unknown> = { ...input };
    if (Object.keys(input).length === 0 && item.required && item.default !== undefined && item.default !== null) {
      entry = { value: item.default };
    }
    if (item.templating !== undefined) {
      if (typeof item.templating === 'boolean') {
        if (item.templating) entry.templating = 'hog';
      } else {
        entry.templating = item.templating;
      }
    }
    try {
      const validated = validateItem(item, entry, options);
      if (!('value' in validated)) continue;
      if (item.secret && validated.value === MASKED_SECRET_VALUE) {
        errors.push({ key, message: 'This secret input was not updated correctly. Enter the value again.' });
        continue;
      }
      valid.set(key, validated);
    } catch (err) {
      if (!(err instanceof InputInvalid)) throw err;
      errors.push({ key, message: err.message });
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const keys = [...valid.keys()];
  const deps = new Map(keys.map((k) => [k, [...valid.get(k)!.deps].filter((d) => valid.has(d))]));
  const order = dependencyOrder(keys, deps);
  if (order === null) return { ok: false, errors: [{ key: null, message: 'Circular dependency detected in input_deps.' }] };
  const compiled: Record<string, CompiledInput> = {};
  order.forEach((key, index) => {
    const { value, templating, bytecode } = valid.get(key)!;
    compiled[key] = {
      ...(value !== null && value !== undefined ? { value } : {}),
      ...(templating !== undefined ? { templating } : {}),
      ...(bytecode !== undefined && bytecode !== null ? { bytecode } : {}),
      order: index,
    };
  });
  return { ok: true, inputs: compiled };
}
