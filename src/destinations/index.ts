// Public face of hog functions and destinations (docs/decisions/0021, 0022): the log
// consumer that runs destinations on events, the management routes and their write
// commands, and the destinations' own store.
export { destinationsConsumer } from './runtime/consumer.js';
// Transformations, as the event store runs them, have a face of their own: ./ingestion.ts.
export type { DestinationsSettings } from './runtime/consumer-declaration.js';
// The claim's handover (docs/decisions/0031): where a successor starts, and taking over.
export { DESTINATIONS_CONSUMER, handoverPosition, takeOver } from './runtime/queue.js';
// Logs, metrics and watcher state: pruned on every node, and with NATS the same on every node (docs/decisions/0034).
export { startRetention as startDestinationsRetention } from './runtime/retention.js';
export { followTelemetry } from './runtime/telemetry-follower.js';
export { hogFunctionRoutes } from './api/routes.js';
export { createHogApiPools, type HogApiPools } from './api/pools.js';
export { templateRoutes } from './api/template-routes.js';
export { hogFunctionCommands } from './commands.js';
export { openDestinationsStore, type DestinationsStore } from './runtime/env.js';
export type { DestinationsTables } from './tables.js';
export type { HogExecTasks } from './tasks.js';
