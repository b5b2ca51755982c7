// The keys of one function's invocations held in memory by the deliveries (./deliveries.ts).
// An invocation without a mapping (most of them) is kept by its event's uuid, a string its
// event holds already, so holding one makes no key text; the others by mapping index and
// uuid (the index comes first and holds no separator, so the text names one key).
import type { InvocationKey } from './queue.js';

export interface HeldKeys {
  size: number;
  plain: Set<string>;
  mapped: Set<string> | null;
}

export const heldKeys = (): HeldKeys => ({ size: 0, plain: new Set(), mapped: null });

const mappedText = (key: InvocationKey) => `${key[2]}\u0000${key[1]}`;

export function isHeld(keys: HeldKeys, key: InvocationKey): boolean {
  return key[2] === -1 ? keys.plain.has(key[1]) : keys.mapped !== null && keys.mapped.has(mappedText(key));
}

export function addHeld(keys: HeldKeys, key: InvocationKey): void {
  if (isHeld(keys, key)) return;
  if (key[2] === -1) keys.plain.add(key[1]);
  else (keys.mapped ??= new Set()).add(mappedText(key));
  keys.size++;
}

/** Whether the key was held. */
export function deleteHeld(keys: HeldKeys, key: InvocationKey): boolean {
  const deleted = key[2] === -1 ? keys.plain.delete(key[1]) : keys.mapped !== null && keys.mapped.delete(mappedText(key));
  if (deleted) keys.size--;
  return deleted;
}
