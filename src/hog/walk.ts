// Generic traversal of a parsed tree, for the checks PostHog runs over a whole program
// or template before compiling it (input references, hyphenated names, globals).

import type { Node } from './ast.js';

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as Node).node === 'string';
}

/** Calls `visit` on every node below and including `root`, children first. */
export function walk(root: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(root)) {
    for (const item of root) walk(item, visit);
    return;
  }
  if (!isNode(root)) return;
  for (const [key, value] of Object.entries(root)) {
    if (key !== 'start' && key !== 'end' && typeof value === 'object' && value !== null) walk(value, visit);
  }
  visit(root);
}
