// `hedgerow serve` and `hedgerow aggregate`: processes that run until SIGINT or SIGTERM.
import type { Config } from '../settings.js';
import type { NodeModule } from '../modules/index.js';
import { probePort } from '../http/port.js';

function closeOnSignal(running: { close(): Promise<void> }): void {
  const shutdown = () => { void running.close().then(() => process.exit(0)); };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

// The port is asked first: a port in use stops the start before the data dir is made.
export async function serve(config: Readonly<Config>, modules: readonly NodeModule[]): Promise<number> {
  await probePort(config.host, config.port);
  const { startServer } = await import('../node/serve.js');
  closeOnSignal(await startServer(config, modules));
  return -1;
}

export async function aggregate(config: Readonly<Config>, modules: readonly NodeModule[]): Promise<number> {
  const { startAggregator } = await import('../node/aggregate.js');
  closeOnSignal(await startAggregator(config, modules));
  return -1;
}
