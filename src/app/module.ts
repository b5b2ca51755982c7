// The web app module: the browser app served by hedgerow itself (docs/decisions/0043), its
// live events tail and status route. Its pages are handed to the node, which serves them on
// PORT or on HEDGEROW_APP_PORT.
import { nodeModule } from '../modules/index.js';
import type { LogTables } from '../log/tables.js';
import type { AppProvides } from './start.js';

export const appModule = nodeModule<AppProvides, LogTables>({
  name: 'app',
  start: async (ctx, use) => (await import('./start.js')).startApp(ctx, use),
});
