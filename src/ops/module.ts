// The ops module: liveness, the node's readiness (every module's checks) and the Prometheus
// metrics over HTTP, and `hedgerow status`.
import { nodeModule } from '../modules/index.js';
import { JSON_FLAG, type CommandEntry } from '../cli/command.js';
import { DATA_DIR, print } from '../cli/store-command.js';

const commands: CommandEntry[] = [
  {
    path: ['status'], summary: 'where this data dir stands: consumers\' positions and lag; with NATS_URL the control stream and every live node',
    settings: DATA_DIR, flags: [JSON_FLAG],
    async run({ config, service }) {
      const [{ openStore }, { tables }, { nodeStatus, formatStatus }, { commandCluster }] = await Promise.all([
        import('../store/index.js'), import('../tables.js'), import('./status.js'), import('../cli/cluster.js'),
      ]);
      const consumers = await service.consumers(config, 'serve');
      const store = openStore(config.dataDir, tables);
      try {
        const cluster = await commandCluster(config, 'readonly');
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
];

export const opsModule = nodeModule({
  name: 'ops',
  commands,
  start: async (ctx) => ({ routes: (await import('./routes.js')).opsRoutes({ metrics: ctx.metrics, ready: ctx.readiness }) }),
});
