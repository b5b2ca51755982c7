// The quota limit as an operator or a client writes it.

/** A limit as given: a whole number, or null / "unlimited" for none. */
export function parseLimit(raw: unknown): number | null | undefined {
  if (raw === null || raw === 'unlimited') return null;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : raw;
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
