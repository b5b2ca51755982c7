// The ops module: liveness, the node's readiness (every module's checks) and the Prometheus
// metrics over HTTP; `hedgerow status`, and what the log's consumers set aside.
import { nodeModule } from '../modules/index.js';
import { DATA_DIR, JSON_FLAG, print, type CommandEntry, type ConfiguredInput } from '../modules/command.js';

const commands: CommandEntry[] = [
  {
    path: ['status'], summary: 'where this data dir stands: consumers\' positions and lag; with NATS_URL the control stream and every live node',
    settings: DATA_DIR, flags: [JSON_FLAG],
    async run({ config, service }) {
      const [{ openStore }, { tables }, { nodeStatus, formatStatus }] = await Promise.all([
        import('../store/index.js'), import('../tables.js'), import('./status.js'),
      ]);
      const consumers = await service.consumers(config, 'serve');
      const store = openStore(config.dataDir, tables);
      try {
        const cluster = await service.cluster(config, 'readonly');
        try {
          const status = await nodeStatus(store, cluster, consumers);
          return print(config.json ? JSON.stringify(status) : formatStatus(status));
        } finally {
          await cluster.close();
        }
      } finally {
        await store.close();
      }
    },
  },
  {
    path: ['dead-letters'], summary: 'log records no consumer could decode, and events one could not apply: set aside',
    settings: ['data'], flags: [JSON_FLAG],
    run: async ({ config }: ConfiguredInput) => print(await (await import('../log/consumers/cli.js')).deadLettersCommand(config)),
  },
];

export const opsModule = nodeModule({
  name: 'ops',
  commands,
  start: async (ctx) => ({ routes: (await import('./routes.js')).opsRoutes({ metrics: ctx.metrics, ready: ctx.readiness }) }),
});
