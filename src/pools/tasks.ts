// What crosses between the main thread and a worker pool, typed once for both sides.
// A domain lists the tasks its pool runs in its own tasks.ts as a task map, one entry
// per kind, each a Task<input, output> of plain data (it crosses a thread boundary):
//
//   export type PersonTasks = { persons: Task<PersonScanTask, PersonScan>; ... };
//
// The main thread gets a TaskRunner of that map from createWorkerPool (./create.ts),
// the worker module serves the same map with serveTasks (./serve.ts), and the compiler
// checks both sides against it.

export interface Task<I, O> {
  readonly input: I;
  readonly output: O;
}

// A task map: kind → Task. (A mapped constraint, so interfaces qualify as well as types.)
export type TaskMap<T> = { [K in keyof T]: Task<unknown, unknown> };

export type Kind<T> = keyof T & string;
export type InputOf<T, K extends keyof T> = T[K] extends Task<infer I, unknown> ? I : never;
export type OutputOf<T, K extends keyof T> = T[K] extends Task<unknown, infer O> ? O : never;

// What a caller needs of a pool. A runner of a larger map (the query pool serves persons'
// and events' tasks) is a runner of each part, so a domain asks for TaskRunner<ItsTasks>.
export interface TaskRunner<T> {
  run<K extends Kind<T>>(kind: K, input: InputOf<T, K>): Promise<OutputOf<T, K>>;
}

// The wire protocol, one Piscina task: inputs of one kind in, one outcome per input out.
export interface TaskMessage {
  kind: string;
  inputs: unknown[];
}

// `outputs[i]` answers `inputs[i]` unless `failed` names index i: then that request
// alone fails, with the error's message, and the rest of its batch is answered.
export interface BatchOutcome<O> {
  outputs: O[];
  failed: FailedItem[] | null;
}

export interface FailedItem {
  index: number;
  error: string;
}
