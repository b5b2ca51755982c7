// The definitions module's start: its API (the event store records the definitions).
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { definitionRoutes } from './routes.js';
import type { DefinitionsTables } from './tables.js';

export function startDefinitions(ctx: NodeContext<DefinitionsTables>, use: Use): Started {
  return { routes: definitionRoutes({ auth: use(accessModule).auth, store: ctx.store, writes: ctx.writes }) };
}
