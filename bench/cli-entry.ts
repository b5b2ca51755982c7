// The hedgerow CLI of a build, for scripts that run this checkout and an older one side by
// side: dist/src/cli/main.js since the CLI has an entry of its own, dist/src/main.js before.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const cliEntry = (cwd: string): string =>
  (existsSync(join(cwd, 'dist/src/cli/main.js')) ? 'dist/src/cli/main.js' : 'dist/src/main.js');
