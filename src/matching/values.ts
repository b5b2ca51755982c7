// How PostHog's Rust evaluator sees a JSON value when an operator needs a string or a
// number: strings as they are, everything else as its compact JSON text (serde_json).

export function stringRepresentation(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return numberText(value);
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return JSON.stringify(value) ?? 'null';
}

function numberText(n: number): string {
  // serde_json prints large floats as 1e21 where JavaScript prints 1e+21.
  return Number.isSafeInteger(n) ? String(n) : String(n).replace('e+', 'e');
}

// Rust's f64 FromStr: optional sign, decimal digits with optional fraction and exponent,
// or inf / infinity / nan in any case. No surrounding whitespace.
const RUST_FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

/** A number as Rust's to_f64_representation would read it, or undefined. */
export function numberRepresentation(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  return parseRustFloat(stringRepresentation(value));
}

export function parseRustFloat(text: string): number | undefined {
  if (!RUST_FLOAT.test(text)) return undefined;
  const lower = text.toLowerCase();
  const sign = lower.startsWith('-') ? -1 : 1;
  const body = lower.replace(/^[+-]/, '');
  if (body === 'inf' || body === 'infinity') return sign * Infinity;
  if (body === 'nan') return NaN;
  return Number(text);
}

/** Lower-cases ASCII letters only, as Rust's to_ascii_lowercase does. */
export function asciiLower(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
  }
  return text;
}

/** True for booleans, "true"/"false" in any case, and arrays made only of those. */
export function isBooleanish(value: unknown): boolean {
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return lower === 'true' || lower === 'false';
  }
  if (Array.isArray(value)) return value.every(isBooleanish);
  return false;
}

/** true, "true" in any case, or an array whose every element is truthy in this sense. */
export function isTruthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  if (Array.isArray(value)) return value.every(isTruthy);
  return false;
}
