// The face destinations show the event store (src/events/store-consumer.ts): transformations
// in ingestion. Apart from ./index.ts so the event store's thread loads the transformer
// alone, not the API, the templates or the deliveries.
export { openTransformer, type Replacement, type Transformed, type Transformer, type TransformerOptions } from './runtime/transformer.js';
