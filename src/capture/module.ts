// The capture module: the capture endpoints, appending to the event log and answering once
// the events are durable, and the worker pool decoding large bodies (docs/decisions/0029).
import { nodeModule } from '../modules/index.js';

export const captureModule = nodeModule({
  name: 'capture',
  start: async (ctx, use) => (await import('./start.js')).startCapture(ctx, use),
});
