// The persons module: persons and groups (built by the event store's person step, see the
// events module), their API, and person operations (deletions, flag hash keys), which ride
// the event log in order with the events (docs/decisions/0032).
import { nodeModule } from '../modules/index.js';
import type { PersonsProvides, PersonsTablesUsed } from './start.js';

export const personsModule = nodeModule<PersonsProvides, PersonsTablesUsed>({
  name: 'persons',
  writes: async () => (await import('./commands.js')).personCommands,
  start: async (ctx, use) => (await import('./start.js')).startPersons(ctx, use),
});
