// The actions module: PostHog's actions (named sets of steps an event can match), which hog
// function filters name (and, to come, insights' ActionsNode and HogQL's matchesAction).
import { nodeModule } from '../modules/index.js';
import type { ActionsProvides } from './start.js';
import type { ActionsTables } from './tables.js';

export const actionsModule = nodeModule<ActionsProvides, ActionsTables>({
  name: 'actions',
  writes: async () => (await import('./commands.js')).actionCommands,
  start: async (ctx, use) => (await import('./start.js')).startActions(ctx, use),
});
