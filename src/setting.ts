// What a row of the settings table (src/settings.ts) is, and what is made from a table of
// them: the config object with where each value came from, errors that name the variable
// and the bound, and the rows `hedgerow config`, `--help` and the README print. Pure: the
// environment, the flags and the number of cores come in as arguments.

export class ConfigError extends Error {}

export type Source = 'default' | 'env' | 'flag';

// What a default computed at start (one thread per spare core, a URL on this port) may
// read: the settings declared above it, and the machine's cores.
export interface Earlier {
  readonly cores: number;
  value(key: string): unknown;
}

export interface Computed<V> {
  // The default in words, for --help and the README ("one per spare core, at most 2").
  readonly says: string;
  readonly of: (earlier: Earlier) => V;
}

export interface Setting<V> {
  readonly env: string;
  // Its command-line flag (without --) and what the flag's value is called in --help.
  readonly flag?: { readonly name: string; readonly value: string };
  // One line: what it sets, for --help, `hedgerow config` and the README.
  readonly doc: string;
  // The values it takes, in words ("1 to 5", "debug, info, warn, error, silent").
  readonly allowed: string;
  readonly fallback: V | Computed<V>;
  // A secret's value is never printed (`hedgerow config`, errors): HEDGEROW_SMTP_URL's password.
  readonly secret: boolean;
  // The value of a raw string, or a Refusal saying which bound it misses.
  read(raw: string): V;
  // A value for people: "2 MiB", "10,000", "none".
  show(value: V): string;
}

// What a raw value misses, said after the variable's name ("must be at least 1024"), or,
// from a check of the setting's own whose message names it already, said as it is.
export class Refusal extends Error {
  constructor(message: string, readonly named = false) {
    super(message);
  }
}

// Settings and tables of settings, keyed as the config object is (any: a table holds
// settings of every value type, and ValuesOf reads each one's back).
export interface Table { readonly [key: string]: Setting<any> | Table }

export type ValuesOf<T> = { -readonly [K in keyof T]: T[K] extends Setting<infer V> ? V : ValuesOf<T[K]> };

export interface Row { readonly key: string; readonly setting: Setting<unknown> }

const isSetting = (v: Table[string]): v is Setting<unknown> => typeof (v as Setting<unknown>).read === 'function';

// The table's settings in declaration order, each with its dotted key ("capture.workers").
export function rowsOf(table: Table, prefix = ''): Row[] {
  return Object.entries(table).flatMap(([name, v]) => (isSetting(v)
    ? [{ key: prefix + name, setting: v }]
    : rowsOf(v as Table, `${prefix}${name}.`)));
}

export interface Resolved<T> {
  readonly values: ValuesOf<T>;
  readonly sources: ReadonlyMap<string, Source>;
}

export interface SettingsInput {
  readonly env: Readonly<Record<string, string | undefined>>;
  // Flag values by flag name ("port"), as given.
  readonly flags: Readonly<Record<string, string | undefined>>;
  readonly cores: number;
}

const isComputed = <V>(d: V | Computed<V>): d is Computed<V> =>
  typeof d === 'object' && d !== null && typeof (d as Computed<V>).of === 'function';

const got = (raw: string, secret: boolean) => (secret ? '' : ` (got ${/^-?\d+(\.\d+)?$/.test(raw) ? raw : JSON.stringify(raw)})`);

// A flag wins over its variable, a variable over the default. An empty variable counts as
// unset (compose files and shells leave `NAME=` behind).
export function resolveSettings<T extends Table>(table: T, input: SettingsInput): Resolved<T> {
  const values: Record<string, unknown> = {};
  const flat = new Map<string, unknown>();
  const sources = new Map<string, Source>();
  const earlier: Earlier = {
    cores: input.cores,
    value(key) {
      if (!flat.has(key)) throw new Error(`a default reads ${key}, which is not declared above it`);
      return flat.get(key);
    },
  };
  for (const { key, setting } of rowsOf(table)) {
    const flagged = setting.flag ? input.flags[setting.flag.name] : undefined;
    const env = input.env[setting.env];
    const [source, name, raw]: [Source, string, string | undefined] = flagged !== undefined
      ? ['flag', `--${setting.flag!.name}`, flagged]
      : env !== undefined && env !== '' ? ['env', setting.env, env] : ['default', setting.env, undefined];
    let value: unknown;
    if (raw === undefined) {
      value = isComputed(setting.fallback) ? setting.fallback.of(earlier) : setting.fallback;
    } else {
      try {
        value = setting.read(raw);
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        throw new ConfigError(err.named ? err.message : `${name} ${err.message}${got(raw, setting.secret)}`);
      }
    }
    flat.set(key, value);
    sources.set(key, source);
    const path = key.split('.');
    let at = values;
    for (const part of path.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
    at[path.at(-1)!] = value;
  }
  return { values: values as ValuesOf<T>, sources };
}

export interface Described {
  readonly key: string;
  readonly env: string;
  readonly flag: string | null;
  // The value as the config object holds it; a secret's is hidden.
  readonly value: unknown;
  readonly source: Source;
}

export const REDACTED = '(set; not shown)';

// Every setting's effective value and where it came from (`hedgerow config`).
export function describeSettings<T extends Table>(table: T, resolved: Resolved<T>): Described[] {
  return rowsOf(table).map(({ key, setting }) => {
    const value = key.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown>)[part], resolved.values);
    const source = resolved.sources.get(key) ?? 'default';
    return {
      key, env: setting.env, flag: setting.flag ? `--${setting.flag.name}` : null, source,
      value: setting.secret && source !== 'default' ? REDACTED : value,
    };
  });
}

// The default of a setting in words.
export function defaultText(setting: Setting<unknown>): string {
  return isComputed(setting.fallback) ? setting.fallback.says : setting.show(setting.fallback);
}

// --- the kinds of setting -------------------------------------------------

interface Common {
  env: string;
  flag?: string;
  // What the flag's value is called in --help ("N", "DIR").
  value?: string;
  doc: string;
  allowed?: string;
  secret?: boolean;
}

const flagOf = (o: Common, fallback: string) => (o.flag ? { name: o.flag, value: o.value ?? fallback } : undefined);

const MIB = 1024 * 1024;
// Digits in groups of three (12,345). Not toLocaleString: its first call loads the locale
// data, ~0.1 s of every process's start (each setting's doc is worked out at load).
const grouped = (n: number) => {
  const [int, frac] = String(n).split('.');
  const digits = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return frac === undefined ? digits : `${digits}.${frac}`;
};

// How a whole number reads in the docs: a size in KiB/MiB/GiB when it is one; digits
// grouped unless plain (a port).
function showWhole(n: number, bytes: boolean, plain = false): string {
  if (plain) return String(n);
  if (bytes && n > 0) {
    for (const [unit, size] of [['GiB', 1024 * MIB], ['MiB', MIB], ['KiB', 1024]] as const) {
      if (n % size === 0) return `${grouped(n / size)} ${unit}`;
    }
  }
  return grouped(n);
}

function bounds(min: number | undefined, max: number | undefined, show: (n: number) => string): string {
  if (min !== undefined && max !== undefined) return `${show(min)} to ${show(max)}`;
  if (min !== undefined) return `${show(min)} or more`;
  if (max !== undefined) return `up to ${show(max)}`;
  return 'a whole number';
}

// A whole number of something, within bounds.
export function whole(o: Common & { min?: number; max?: number; bytes?: boolean; plain?: boolean; default: number | Computed<number> }): Setting<number> {
  const show = (n: number) => showWhole(n, o.bytes ?? false, o.plain);
  return {
    env: o.env, flag: flagOf(o, 'N'), doc: o.doc, allowed: o.allowed ?? bounds(o.min, o.max, show), fallback: o.default, secret: o.secret ?? false,
    read(raw) {
      if (!/^\d+$/.test(raw)) throw new Refusal('must be a whole number');
      const n = Number(raw);
      if (o.min !== undefined && o.max !== undefined && (n < o.min || n > o.max)) throw new Refusal(`must be from ${o.min} to ${o.max}`);
      if (o.min !== undefined && n < o.min) throw new Refusal(`must be at least ${o.min}`);
      if (o.max !== undefined && n > o.max) throw new Refusal(`must be at most ${o.max}`);
      return n;
    },
    show,
  };
}

// Text, optionally required to be non-empty, to match a pattern, or to pass a check of its
// own (which throws an error naming the setting), and normalised once read.
export function text(o: Common & {
  default: string | Computed<string>; nonEmpty?: boolean; pattern?: { re: RegExp; says: string };
  check?: (value: string) => void; normalize?: (value: string) => string;
}): Setting<string> {
  const normalize = o.normalize ?? ((v: string) => v);
  return {
    env: o.env, flag: flagOf(o, 'TEXT'), doc: o.doc, allowed: o.allowed ?? (o.pattern?.says ?? 'text'), secret: o.secret ?? false,
    // Normalised when read, not when declared (a relative directory is resolved against the
    // working directory of the command that reads it).
    fallback: { says: isComputed(o.default) ? o.default.says : showText(o.default), of: (e) => normalize(isComputed(o.default) ? o.default.of(e) : o.default) },
    read(raw) {
      if (o.nonEmpty && raw === '') throw new Refusal('must not be empty');
      if (o.pattern && !o.pattern.re.test(raw)) throw new Refusal(`must be ${o.pattern.says}`);
      if (o.check) {
        try {
          o.check(raw);
        } catch (err) {
          throw new Refusal((err as Error).message, true);
        }
      }
      return normalize(raw);
    },
    show: showText,
  };
}

const showText = (v: string) => (v === '' ? '(empty)' : v);

// Text that may be absent altogether (null), such as NATS_URL.
export function optional(o: Common): Setting<string | null> {
  return {
    env: o.env, flag: flagOf(o, 'TEXT'), doc: o.doc, allowed: o.allowed ?? 'text', fallback: null, secret: o.secret ?? false,
    read: (raw) => raw,
    show: (v) => v ?? 'none',
  };
}

// One of a few words.
export function choice<const V extends string>(o: Common & { values: readonly V[]; default: V | Computed<V> }): Setting<V> {
  return {
    env: o.env, flag: flagOf(o, o.values.join('|')), doc: o.doc, allowed: o.allowed ?? o.values.join(', '), fallback: o.default,
    secret: o.secret ?? false,
    read(raw) {
      if (!(o.values as readonly string[]).includes(raw)) throw new Refusal(`must be one of ${o.values.join(', ')}`);
      return raw as V;
    },
    show: (v) => v,
  };
}

// A fraction above 0 and at most 1 (a scale applied to durations).
export function fraction(o: Common & { default: number }): Setting<number> {
  return {
    env: o.env, flag: flagOf(o, 'X'), doc: o.doc, allowed: o.allowed ?? 'a number above 0 and at most 1', fallback: o.default, secret: o.secret ?? false,
    read(raw) {
      if (!/^(0|[1-9]\d*)?(\.\d+)?$/.test(raw) || raw === '' || raw === '.') throw new Refusal('must be a number above 0 and at most 1');
      const n = Number(raw);
      if (!(n > 0 && n <= 1)) throw new Refusal('must be above 0 and at most 1');
      return n;
    },
    show: (n) => String(n),
  };
}
