// Locates and reads the shared conformance data (shared/ sits beside the repository, in
// development and in CI's fresh clone alike).

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function conformanceDir(): string {
  // Compiled to dist/test/flags/, three levels below the repository root.
  const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
  const candidates = [
    resolve(process.cwd(), '../shared/conformance'),
    resolve(repoRoot, '../shared/conformance'),
    resolve(process.cwd(), 'shared/conformance'),
  ];
  const found = candidates.find((c) => existsSync(join(c, 'flag-consistency-1000.json')));
  if (found === undefined) throw new Error(`shared/conformance not found; looked in ${candidates.join(', ')}`);
  return found;
}

export function readConformance<T>(relativePath: string): T {
  return JSON.parse(readFileSync(join(conformanceDir(), relativePath), 'utf8')) as T;
}

/** A fixed clock for tests: 2024-06-15T12:00:00Z. */
export const NOW = Date.UTC(2024, 5, 15, 12, 0, 0);
