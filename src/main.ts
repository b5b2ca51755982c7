#!/usr/bin/env node
// hedgerow: the list of its modules, and the CLI over them. A module is one domain's part
// (src/modules/node.ts): its commands, the management commands its state is written by, its
// log consumers, and a start that answers its routes, readiness checks and close. The node
// (src/node/) opens its core, then starts these in order and closes them in reverse; a
// module may use what one listed before it provides. Adding a domain is one module file and
// one line here. The event store's step before storing is composed here too: the
// destinations' transformations (src/events/pre-store.ts), so events imports no destinations.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { NodeModule } from './modules/index.js';
import { runCli } from './cli/main.js';
import { opsModule } from './ops/module.js';
import { accessModule } from './access/module.js';
import { quotaModule } from './quota/module.js';
import { createEventsModule } from './events/module.js';
import { personsModule } from './persons/module.js';
import { ingestionWarningsModule } from './ingestion-warnings/module.js';
import { captureModule } from './capture/module.js';
import { flagsModule } from './flags/module.js';
import { insightsModule } from './insights/module.js';
import { dashboardsModule } from './dashboards/module.js';
import { actionsModule } from './actions/module.js';
import { definitionsModule } from './definitions/module.js';
import { exportsModule } from './exports/module.js';
import { subscriptionsModule } from './subscriptions/module.js';
import { destinationsModule } from './destinations/module.js';
import { transformationsBeforeStore } from './destinations/ingestion.js';
import { snapshotsModule } from './snapshots/module.js';
import { hogModule } from './hog/module.js';
import { appModule } from './app/module.js';

export const MODULES: readonly NodeModule[] = [
  opsModule,
  accessModule,
  quotaModule,
  createEventsModule(transformationsBeforeStore),
  personsModule,
  ingestionWarningsModule,
  definitionsModule,
  captureModule,
  flagsModule,
  insightsModule,
  dashboardsModule,
  actionsModule,
  exportsModule,
  subscriptionsModule,
  destinationsModule,
  snapshotsModule,
  hogModule,
  appModule,
];

const invokedDirectly = process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) {
  const code = await runCli(process.argv.slice(2), MODULES);
  if (code >= 0) process.exit(code);
}
