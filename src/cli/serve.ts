// `hedgerow serve` and `hedgerow aggregate`: processes that run until SIGINT or SIGTERM.
import type { Config } from '../settings.js';
import type { NodeModule } from '../modules/index.js';
import { probePort } from '../http/port.js';

// The handlers are in place before the start: a signal that arrives while the node starts
// (or right after its "listening" line) closes it once started, instead of killing the
// process with nothing closed. A start that fails is reported by the caller.
function closeOnSignal(starting: Promise<{ close(): Promise<void> }>): void {
  const shutdown = () => { starting.then((running) => running.close().then(() => process.exit(0)), () => undefined); };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

// The port is asked first: a port in use stops the start before the data dir is made.
export async function serve(config: Readonly<Config>, modules: readonly NodeModule[]): Promise<number> {
  await probePort(config.host, config.port);
  const { startServer } = await import('../node/serve.js');
  const starting = startServer(config, modules);
  closeOnSignal(starting);
  await starting;
  return -1;
}

export async function aggregate(config: Readonly<Config>, modules: readonly NodeModule[]): Promise<number> {
  const { startAggregator } = await import('../node/aggregate.js');
  const starting = startAggregator(config, modules);
  closeOnSignal(starting);
  await starting;
  return -1;
}
