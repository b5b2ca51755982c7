// The persons module's start: the writer of person operations into the event log and the
// persons API (its scans run in the events module's pool).
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/index.js';
import { eventsModule, uuidRecorded, type EventsTables } from '../events/index.js';
import { captureCodec } from '../capture/frames.js';
import type { PersonsTables } from './tables.js';
import { personOperations, type PersonOperations } from './operation-writer.js';
import { personRoutes } from './routes.js';

export type PersonsTablesUsed = PersonsTables & EventsTables;

export interface PersonsProvides {
  operations: PersonOperations;
}

export function startPersons(ctx: NodeContext<PersonsTablesUsed>, use: Use): Started<PersonsProvides> {
  const { auth } = use(accessModule);
  const { scans } = use(eventsModule);
  const operations = personOperations({
    log: ctx.eventLog, frame: captureCodec.operationFrame, applied: (projectId, uuid) => uuidRecorded(ctx.store, projectId, uuid),
  });
  return {
    provides: { operations },
    routes: personRoutes({ auth, store: ctx.store, operations, scans, log: ctx.log }),
  };
}
