// Public face of hog functions and destinations (docs/decisions/0021, 0022): the log
// consumer that runs destinations on events, and the management routes.
export { destinationsConsumer, DESTINATIONS_CONSUMER, type DestinationsSettings } from './runtime/consumer.js';
