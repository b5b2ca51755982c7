// The hedgerow CLI of a build, for scripts that run this checkout and an older one side by
// side: whatever that checkout's package.json names as its bin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const cliEntry = (cwd: string): string =>
  (JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as { bin: { hedgerow: string } }).bin.hedgerow;
