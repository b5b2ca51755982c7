// The definitions module: PostHog's property and event definitions, recorded by the event
// store's pass from the events it stores (./step.ts), listed and changed through its API,
// and read by HogQL for the types of properties.
import { nodeModule } from '../modules/index.js';
import type { DefinitionsTables } from './tables.js';

export const definitionsModule = nodeModule<undefined, DefinitionsTables>({
  name: 'definitions',
  writes: async () => (await import('./commands.js')).definitionCommands,
  start: async (ctx, use) => (await import('./start.js')).startDefinitions(ctx, use),
});
