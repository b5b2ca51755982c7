// The aggregation worker's side of the query protocol (./protocol.ts): runs each request on
// the columnar store it owns, interrupts one on cancel, answers with the data position the
// query saw.
import { BroadcastChannel } from 'node:worker_threads';
import type { HogQLParsePool } from '../hogql/index.js';
import type { Columnar } from './columnar/database.js';
import { QueryError } from './planner/errors.js';
import { channelNames, type WorkerAnswer, type WorkerRequest } from './protocol.js';
import type { runQuery as RunQuery } from './run.js';

export interface QueryServer {
  close(): void | Promise<void>;
}

/** What a failed query answers: a bad query (QueryError, a 400) or another failure. */
export function failureOf(err: unknown, cancelled: boolean): { message: string; attr: string | null; invalid: boolean; cancelled: boolean } {
  const invalid = err instanceof QueryError;
  return { message: err instanceof Error ? err.message : String(err), attr: invalid ? err.attr : null, invalid, cancelled };
}

// The planner, its schemas and HogQL load with the first query rather than with the thread:
// they were about a third of the insights thread's start-up, paid by every process start.
let planner: Promise<typeof import('./run.js')> | undefined;
export const runQuery: typeof RunQuery = async (...args) => (await (planner ??= import('./run.js'))).runQuery(...args);

export function serveQueries(db: Columnar, dataDir: string, position: () => Promise<number>, hogql?: HogQLParsePool): QueryServer {
  const names = channelNames(dataDir);
  const requests = new BroadcastChannel(names.requests);
  const answers = new BroadcastChannel(names.answers);
  const running = new Map<string, AbortController>();
  const answer = (a: WorkerAnswer) => answers.postMessage(a);

  requests.onmessage = (message) => {
    const request = (message as { data: WorkerRequest }).data;
    if (request.type === 'cancel') {
      running.get(request.id)?.abort();
      return;
    }
    if (running.has(request.id)) return;
    const controller = new AbortController();
    running.set(request.id, controller);
    void (async () => {
      try {
        const at = await position();
        const response = await runQuery(db, request.query, request.run, controller.signal, hogql);
        answer({ type: 'done', id: request.id, response, position: at });
      } catch (err) {
        answer({ type: 'failed', id: request.id, ...failureOf(err, controller.signal.aborted) });
      } finally {
        running.delete(request.id);
      }
    })();
  };
  answer({ type: 'ready' });
  return {
    close() {
      for (const c of running.values()) c.abort();
      requests.close();
      answers.close();
    },
  };
}
