// The events module's start: the events API. With a cluster, the node is
// ready once its event store has applied the event stream as it stood at start (a node
// joining late serves no persons it has not built yet).
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { consumerPosition } from '../log/consumers/index.js';
import type { LogTables } from '../log/tables.js';
import type { PersonsTables } from '../persons/index.js';
import type { EventsTables } from './tables.js';
import { EVENT_STORE_CONSUMER } from './position.js';
import { eventRoutes } from './routes.js';

export type EventsTablesUsed = EventsTables & PersonsTables & LogTables;

export function startEvents(ctx: NodeContext<EventsTablesUsed>, use: Use): Started {
  const { auth } = use(accessModule);
  const atStart = ctx.eventLog.lastSeq();
  const position = consumerPosition(ctx.store, EVENT_STORE_CONSUMER, ctx.eventLog.id);
  let caughtUp = atStart === 0;
  return {
    routes: eventRoutes({ auth, store: ctx.store, scans: ctx.scans }),
    ready: (): Record<string, boolean> => (ctx.cluster.jetstream ? { events: caughtUp ||= (position.read() ?? 0) >= atStart } : {}),
  };
}
