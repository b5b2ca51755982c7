// Reads the flag conformance corpus kept in the repository (test/fixtures/conformance/,
// whose README says where it came from).

import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// Compiled to dist/test/flags/, three levels below the repository root; the JSON stays in
// the source tree (tsc copies no JSON it was not asked to import).
const CORPUS = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/conformance');

export function readConformance<T>(relativePath: string): T {
  return JSON.parse(readFileSync(join(CORPUS, relativePath), 'utf8')) as T;
}

/** A fixed clock for tests: 2024-06-15T12:00:00Z. */
export const NOW = Date.UTC(2024, 5, 15, 12, 0, 0);
