// The events module's start: the scan pool and the events API. With a cluster, the node is
// ready once its event store has applied the event stream as it stood at start (a node
// joining late serves no persons it has not built yet).
import type { NodeContext, Started, Use } from '../modules/index.js';
import { accessModule } from '../access/index.js';
import { consumerPosition } from '../log/consumers/index.js';
import type { LogTables } from '../log/tables.js';
import type { PersonsTables } from '../persons/index.js';
import { createWorkerPool, type TaskRunner } from '../pools/index.js';
import type { EventsTables } from './tables.js';
import { EVENT_STORE_CONSUMER } from './consumer.js';
import { eventRoutes } from './routes.js';
import type { QueryTasks, QueryWorkerData } from '../../workers/queries.js';

const QUERY_WORKER_URL = new URL('../../workers/queries.js', import.meta.url);

export type EventsTablesUsed = EventsTables & PersonsTables & LogTables;

export interface EventsProvides {
  // The management reads that scan, one thread: they are rare, and the flag workers keep the
  // other cores.
  scans: TaskRunner<QueryTasks>;
}

export function startEvents(ctx: NodeContext<EventsTablesUsed>, use: Use): Started<EventsProvides> {
  const { auth } = use(accessModule);
  const scans = createWorkerPool<QueryTasks, QueryWorkerData>({ worker: QUERY_WORKER_URL, threads: 1, workerData: { dataDir: ctx.config.dataDir } });
  const atStart = ctx.eventLog.lastSeq();
  const position = consumerPosition(ctx.store, EVENT_STORE_CONSUMER, ctx.eventLog.id);
  let caughtUp = atStart === 0;
  return {
    provides: { scans },
    routes: eventRoutes({ auth, store: ctx.store, scans }),
    ready: (): Record<string, boolean> => (ctx.cluster.jetstream ? { events: caughtUp ||= (position.read() ?? 0) >= atStart } : {}),
    close: () => scans.close(),
  };
}
