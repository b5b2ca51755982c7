// hedgerow's modules: what a domain declares (its CLI commands, the management commands its
// state is written by, the log consumers it runs) and what its start is handed (a node's
// context). A domain's module.ts declares one and stays light: everything heavy is loaded
// by its start (a dynamic import), so that `hedgerow --help` loads no service.
import type { Config } from '../settings.js';
import type { Logger } from '../logger.js';
import type { Cluster } from '../cluster/index.js';
import type { StateWrites, AnyCommandSpec } from '../state/index.js';
import type { EventLog } from '../log/types.js';
import type { RegisteredConsumer } from '../log/consumers/index.js';
import type { Metrics } from '../metrics.js';
import type { TaskRunner } from '../pools/index.js';
import type { CommandEntry } from './command.js';
import type { Module } from './module.js';

// What a process of hedgerow is: `serve` (the service) or `aggregate` (an insights replica).
export type Role = 'serve' | 'aggregate';

export interface Readiness {
  ok: boolean;
  checks: Record<string, boolean>;
  // Why the checks that fail do, where their module says (only when one does).
  reasons?: Record<string, string>;
}

// A consumer that runs on one node of a cluster at a time (its effects leave the service),
// started and stopped by its claim (src/log/consumers/claim.ts).
export interface ClaimHooks {
  // Where a successor should start if this node dies now (recorded at each renewal), given
  // the consumer's own position.
  position(current: number): number;
  // Before the consumer starts on this node, with the position the last holder recorded.
  onAcquire?(recorded: number | null): Promise<void>;
}

// The node's log consumers: each module's are registered before anything starts (so log
// retention waits for them); after every module started, the node runs them in supervised
// threads, except the claimed ones, which run where their claim is held.
export interface Consumers {
  // Runs `name` only on the node holding its claim; its module calls this in its start and
  // releases it in its close (before what `hooks` read is closed).
  claim(name: string, hooks: ClaimHooks): Promise<{ release(): Promise<void> }>;
  // Each consumer's position in the event log, and the claims this node holds (the web
  // app's status page; `hedgerow status` reads the same).
  positions(): { name: string; position: number }[];
  held(): string[];
}

// What every module's start is handed: the node's core, opened before any module starts.
// `S`: the tables the module reads and writes (a slice of the whole store: its own, and
// any other domain's it touches); the node hands every module the whole store.
export interface NodeContext<S = unknown> {
  readonly config: Readonly<Config>;
  readonly log: Logger;
  // Where the first start's banner (the keys) is written: stderr, or a test's stream.
  readonly out: NodeJS.WritableStream;
  readonly cluster: Cluster;
  readonly store: S;
  // The management write path: embedded, or the control stream every node applies.
  readonly writes: StateWrites;
  // With NATS, where this node stands in the control stream (null embedded).
  readonly control: { applied(): number; lag(): number } | null;
  readonly eventLog: EventLog;
  // Whether this node's event store has applied the event or operation `uuid` of a project.
  recorded(projectId: number, uuid: string): boolean;
  // The pool of management reads that scan (workers/queries.ts, docs/decisions/0013): each
  // module runs its own tasks on it (events, persons, ingestion warnings).
  readonly scans: TaskRunner<any>;
  readonly consumers: Consumers;
  readonly metrics: Metrics;
  // The whole node's readiness (every module's checks), for /_readiness.
  readiness(): Readiness;
}

// A domain's part in hedgerow. `P`: what its start provides to the modules after it.
export interface NodeModule<P = unknown, S = any> extends Module<NodeContext<S>, P> {
  // Its CLI commands (each loads its implementation when it runs).
  readonly commands?: readonly CommandEntry[];
  // The management commands its state is written by: every node applies every module's.
  readonly writes?: () => Promise<readonly AnyCommandSpec<any>[]>;
  // The log consumers it runs in a process of this role.
  readonly consumers?: (config: Readonly<Config>, role: Role) => Promise<readonly RegisteredConsumer[]>;
}

export function nodeModule<P = undefined, S = unknown>(module: NodeModule<P, S>): NodeModule<P, S> {
  return module;
}
