// How the service reaches the aggregation workers that own columnar stores: one interface,
// two implementations. Embedded (here): the one aggregation worker thread of this process,
// over BroadcastChannels (./protocol.ts); a query is resent when a worker announces itself
// (after a start or a restart), and given up after a time limit. Over NATS: `hedgerow
// aggregate` replicas answering a queue group (./nats-engine.ts).
import { randomUUID } from 'node:crypto';
import { BroadcastChannel } from 'node:worker_threads';
import { QueryError } from './planner/errors.js';
import { channelNames, type RunRequest, type WorkerAnswer } from './protocol.js';
import type { QueryResponse, RunContext } from './run.js';

export interface EngineAnswer {
  response: QueryResponse;
  /** The log position the columnar store had loaded when the query ran. */
  position: number;
}

export interface InsightsEngine {
  /**
   * Runs a query in an aggregation worker; an abort cancels it there. `atLeast`: the log
   * position the answer must reflect (a replica that has not loaded that far does not answer).
   */
  run(query: unknown, context: RunContext, signal?: AbortSignal, atLeast?: number): Promise<EngineAnswer>;
  /**
   * The log position an answer calculated now must reflect: embedded, what the worker has
   * loaded; over NATS, the stream's last sequence (every event acknowledged so far).
   */
  position(): Promise<number>;
  close(): void;
}

/** No aggregation worker answered in time (it is down, or still starting). */
export class EngineUnavailableError extends Error {}

/** The query was cancelled. */
export class QueryCancelledError extends Error {}

interface Waiting {
  request: RunRequest;
  resolve(answer: EngineAnswer): void;
  reject(err: unknown): void;
  timer: NodeJS.Timeout;
}

/** `loaded`: the worker's loaded position (its consumer position in LMDB). */
export function connectEngine(dataDir: string, timeoutMs: number, loaded: () => number): InsightsEngine {
  const names = channelNames(dataDir);
  const requests = new BroadcastChannel(names.requests);
  const answers = new BroadcastChannel(names.answers);
  requests.unref();
  answers.unref();
  const waiting = new Map<string, Waiting>();

  answers.onmessage = (message) => {
    const answer = (message as { data: WorkerAnswer }).data;
    if (answer.type === 'ready') {
      for (const w of waiting.values()) requests.postMessage(w.request);
      return;
    }
    const w = waiting.get(answer.id);
    if (!w) return;
    waiting.delete(answer.id);
    clearTimeout(w.timer);
    if (answer.type === 'done') w.resolve({ response: answer.response, position: answer.position });
    else if (answer.cancelled) w.reject(new QueryCancelledError('Query cancelled'));
    else if (answer.invalid) w.reject(new QueryError(answer.message, answer.attr));
    else w.reject(new Error(answer.message));
  };

  return {
    position: async () => loaded(),
    run(query, context, signal) {
      return new Promise<EngineAnswer>((resolve, reject) => {
        if (signal?.aborted) {
          reject(new QueryCancelledError('Query cancelled'));
          return;
        }
        const id = randomUUID();
        const request: RunRequest = { type: 'run', id, query, run: context };
        const timer = setTimeout(() => {
          waiting.delete(id);
          requests.postMessage({ type: 'cancel', id });
          reject(new EngineUnavailableError(`no answer from the aggregation worker within ${timeoutMs} ms`));
        }, timeoutMs);
        timer.unref();
        waiting.set(id, { request, resolve, reject, timer });
        signal?.addEventListener('abort', () => requests.postMessage({ type: 'cancel', id }), { once: true });
        requests.postMessage(request);
      });
    },
    close() {
      for (const w of waiting.values()) {
        clearTimeout(w.timer);
        w.reject(new EngineUnavailableError('closed'));
      }
      waiting.clear();
      requests.close();
      answers.close();
    },
  };
}
