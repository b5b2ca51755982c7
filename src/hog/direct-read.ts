// Input templates that only read a global (`{event}`, `{person.properties.email}`) or are a
// constant string, answered without starting the VM. They are most of what destinations
// template (PostHog's webhook sends `{event}` and `{person}`), and the VM answers them by
// converting the whole value into its own representation and back, which for an event of
// fifty properties costs more than the rest of a delivery. The answer is the value the VM
// gives: the same lookup rules (getNestedValue, nullish), the same fallback when the first
// name is not a global (the VM then looks for functions: left to it). It is not a copy:
// callers only read it. Unlike the VM it does not price the value against the memory limit;
// a global is an event or a person, bounded by what capture accepts.
import { Op } from './opcodes.js';

export const NOT_DIRECT = Symbol('not a direct read');

// The value at `chain` as the VM's getNestedValue reads it with nullish access.
export function nested(globals: Record<string, unknown>, chain: string[]): unknown {
  let obj: unknown = globals;
  for (const key of chain) obj = nestedStep(obj, key);
  return obj;
}

// One step of `nested`: null stays null.
export function nestedStep(obj: unknown, key: string): unknown {
  if (obj === null) return null;
  if (obj instanceof Map) return obj.get(key) ?? null;
  return Object.prototype.hasOwnProperty.call(obj, key) ? (obj as Record<string, unknown>)[key] ?? null : null;
}

/**
 * The result of `bytecode` run on `globals` when it is a constant string or one read of a
 * global by names, else NOT_DIRECT (run it in the VM).
 */
export function readDirect(bytecode: readonly unknown[], globals: Record<string, unknown>): unknown {
  if (bytecode[0] !== '_H' || bytecode[1] !== 1) return NOT_DIRECT;
  const n = bytecode.length;
  if (n === 4 && bytecode[2] === Op.STRING && typeof bytecode[3] === 'string') return bytecode[3];
  // STRING name_k … STRING name_1, GET_GLOBAL k: the names are pushed last one first.
  if (n < 6 || bytecode[n - 2] !== Op.GET_GLOBAL) return NOT_DIRECT;
  const count = bytecode[n - 1];
  if (typeof count !== 'number' || n !== 2 + 2 * count + 2) return NOT_DIRECT;
  const chain = new Array<string>(count);
  for (let i = 0; i < count; i++) {
    const op = bytecode[2 + 2 * i];
    const name = bytecode[3 + 2 * i];
    if (op !== Op.STRING || typeof name !== 'string') return NOT_DIRECT;
    chain[count - 1 - i] = name;
  }
  if (!Object.hasOwn(globals, chain[0])) return NOT_DIRECT;
  return nested(globals, chain);
}
