// DRF field parsing for management request bodies (flags, cohorts, hog functions): each
// reads one field and throws the error DRF would (with PostHog's body), or returns
// undefined when the field is absent.
import { errors } from '../errors.js';
import { pythonType } from './body.js';

type Body = Record<string, unknown>;

export interface CharOptions {
  max?: number;
  allowBlank?: boolean;
  allowNull?: boolean;
}

/** DRF's CharField: numbers count as their text, whitespace is trimmed. */
export function charField(body: Body, name: string, opts: CharOptions = {}): string | null | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) {
    if (opts.allowNull) return null;
    throw errors.nullField(name);
  }
  if (typeof v !== 'string' && typeof v !== 'number') throw errors.notAString(name);
  const text = String(v).trim();
  if (text === '' && !opts.allowBlank) throw errors.blank(name);
  if (opts.max !== undefined && text.length > opts.max) throw errors.tooLong(name, opts.max);
  return text;
}

export function booleanField(body: Body, name: string): boolean | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) throw errors.nullField(name);
  if (typeof v !== 'boolean') throw errors.notABoolean(name);
  return v;
}

export function choiceField<T extends string>(body: Body, name: string, choices: readonly T[], allowNull = false): T | null | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) {
    if (allowNull) return null;
    throw errors.nullField(name);
  }
  if (!(choices as readonly unknown[]).includes(v)) throw errors.invalidChoice(v, name);
  return v as T;
}

/** DRF's DictField (and a JSON field that must hold an object). */
export function dictField(body: Body, name: string): Record<string, unknown> | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) throw errors.nullField(name);
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw errors.validation(`Expected a dictionary of items but got type "${pythonType(v)}".`, name, 'not_a_dict');
  }
  return v as Record<string, unknown>;
}

export interface IntegerOptions {
  min?: number;
  max?: number;
  allowNull?: boolean;
}

/** DRF's IntegerField: integral numbers and their text; booleans and fractions refused. */
export function integerField(body: Body, name: string, opts: IntegerOptions = {}, attr = name): number | null | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) {
    if (opts.allowNull) return null;
    throw errors.nullField(attr);
  }
  const text = typeof v === 'number' || typeof v === 'string' ? String(v).trim().replace(/\.0*$/, '') : '';
  if (!/^[-+]?\d+$/.test(text)) throw errors.validation('A valid integer is required.', attr, 'invalid');
  const n = Number(text);
  if (opts.min !== undefined && n < opts.min) throw errors.validation(`Ensure this value is greater than or equal to ${opts.min}.`, attr, 'min_value');
  if (opts.max !== undefined && n > opts.max) throw errors.validation(`Ensure this value is less than or equal to ${opts.max}.`, attr, 'max_value');
  return n;
}

/** DRF's ListField. */
export function listField(body: Body, name: string, attr = name): unknown[] | undefined {
  const v = body[name];
  if (v === undefined) return undefined;
  if (v === null) throw errors.nullField(attr);
  if (!Array.isArray(v)) throw errors.validation(`Expected a list of items but got type "${pythonType(v)}".`, attr, 'not_a_list');
  return v;
}
