// Public face of the log-consumer mechanism (docs/decisions/0014). A domain defines a
// consumer (defineConsumer, ConsumerHandler); the service registers it (registered) in
// src/main.ts, which supervises a worker thread per consumer and holds log retention for
// all of them.
export {
  defineConsumer, LogGapError,
  type ConsumerContext, type ConsumerDefinition, type ConsumerHandler, type ConsumerPosition, type EventGroup, type LogGap, type StartAt,
} from './types.js';
export { consumerPosition, positionKey } from './positions.js';
export { applyIsolating, type ConsumerReports, type FailureKind } from './ladder.js';
export { consumerContext, runConsumer, type RunOptions } from './run.js';
export { positionsOf, registerConsumers, registered, type RegisteredConsumer } from './registry.js';
export { superviseConsumer, type SupervisedConsumer } from './supervise.js';
export type { ConsumerThreadData } from './thread.js';
export { claimWork, type Claim } from './claim.js';
export { listDeadLetters, type DeadLetterListing, type QuarantinedRecord, type SetAsideEvent } from './dead-letters.js';
export { deadLettersCommand } from './cli.js';
