// Checks PostHog's API runs on Hog source and templates before compiling them.

import type { ArithmeticOperation, Field, Node } from './ast.js';
import { walk } from './walk.js';

/**
 * `a.b-c` is `a.b` minus `c`, almost never what was meant: PostHog refuses it (when the
 * minus has no spaces around it) and suggests bracket notation.
 */
export function hyphenatedName(root: Node): { message: string; node: Node } | null {
  let error: { message: string; node: Node } | null = null;
  walk(root, (node) => {
    if (error !== null || node.node !== 'ArithmeticOperation') return;
    const { left, right, op } = node as ArithmeticOperation;
    if (op !== '-' || left.node !== 'Field' || right.node !== 'Field') return;
    const leftChain = (left as Field).chain;
    const rightChain = (right as Field).chain;
    if (leftChain.length < 2 || rightChain.length !== 1) return;
    if (left.end && right.start && right.start.offset - left.end.offset !== 1) return;
    const parent = leftChain.slice(0, -1).map(String).join('.');
    const message = 'Hyphens are not supported in identifiers and are interpreted as subtraction. ' +
      `Use bracket notation: ${parent}['${String(leftChain[leftChain.length - 1])}-${String(rightChain[0])}']`;
    error = { message, node };
  });
  return error;
}

/** Names X of every `inputs.X` the tree reads. */
export function referencedInputs(root: Node): Set<string> {
  const names = new Set<string>();
  walk(root, (node) => {
    if (node.node !== 'Field') return;
    const chain = (node as Field).chain;
    if (chain[0] === 'inputs' && chain.length > 1) names.add(String(chain[1]));
  });
  return names;
}

/** Roots of global names the tree reads that are not in `allowed`. */
export function globalsOutside(root: Node, allowed: (name: string) => boolean): string[] {
  const invalid = new Set<string>();
  walk(root, (node) => {
    if (node.node !== 'Field') return;
    const chain = (node as Field).chain;
    if (chain.length > 0 && !allowed(String(chain[0]))) invalid.add(String(chain[0]));
  });
  return [...invalid].sort();
}
