// Public face of the log-consumer mechanism (docs/decisions/0014). A domain declares a
// consumer (declareConsumer: its name, start, order, heap) and defines it in the file the
// declaration names (defineConsumer, ConsumerHandler); its module.ts registers the
// declaration (registered), and the service supervises a worker thread per consumer, which
// alone loads the definition, and holds log retention for all of them.
export {
  ConsumerStopped, declareConsumer, defineConsumer, LogGapError,
  type ConsumerContext, type ConsumerDeclaration, type ConsumerDefinition, type ConsumerHandler, type ConsumerPosition, type EventGroup, type LogGap, type StartAt,
} from './types.js';
export { consumerPosition, positionKey } from './positions.js';
export { applyIsolating, type ConsumerReports, type FailureKind } from './ladder.js';
export { consumerContext, runConsumer, type RunOptions } from './run.js';
export { runsOf, type Run } from './runs.js';
export { positionsOf, registerConsumers, registered, type RegisteredConsumer } from './registry.js';
export { superviseConsumer, type SupervisedConsumer } from './supervise.js';
export type { ConsumerThreadData } from './thread.js';
export { claimWork, type Claim } from './claim.js';
export { listDeadLetters, type DeadLetterListing, type QuarantinedRecord, type SetAsideEvent } from './dead-letters.js';
export { deadLettersCommand } from './cli.js';
