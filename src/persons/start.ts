// The persons module's start: the writer of person operations into the event log and the
// persons API.
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { captureCodec } from '../capture/frames.js';
import type { PersonsTables } from './tables.js';
import { personOperations, type PersonOperations } from './operation-writer.js';
import { personRoutes } from './routes.js';

export type PersonsTablesUsed = PersonsTables;

export interface PersonsProvides {
  operations: PersonOperations;
}

export function startPersons(ctx: NodeContext<PersonsTablesUsed>, use: Use): Started<PersonsProvides> {
  const { auth } = use(accessModule);
  const operations = personOperations({ log: ctx.eventLog, frame: captureCodec.operationFrame, applied: ctx.recorded });
  return {
    provides: { operations },
    routes: personRoutes({ auth, store: ctx.store, operations, scans: ctx.scans, log: ctx.log }),
  };
}
