// The snapshots module (docs/decisions/0033): with NATS, the node holding the `snapshots`
// claim snapshots its state for the cluster and compacts the control stream behind the
// snapshots kept; and the commands to take one now or list them. (A node joining from a
// snapshot does so before its store opens: src/node/open.ts.)
import { nodeModule } from '../modules/index.js';
import { DATA_DIR, JSON_FLAG, print, type CommandEntry } from '../modules/command.js';
import type { Environments } from '../store/index.js';

const commands: CommandEntry[] = (['create', 'list'] as const).map((sub): CommandEntry => ({
  path: ['snapshot', sub],
  summary: sub === 'create'
    ? 'with NATS_URL: snapshot this data dir into JetStream now, and compact the control stream behind the snapshots kept'
    : 'with NATS_URL: list the snapshots in JetStream',
  settings: DATA_DIR, flags: [JSON_FLAG],
  async run({ config, service }) {
    const [{ snapshotCommand }, { EVENT_STORE_CONSUMER }] = await Promise.all([import('./cli.js'), import('../events/index.js')]);
    return print(await snapshotCommand(sub, { ...config, eventStore: EVENT_STORE_CONSUMER }, () => service.cluster(config)));
  },
}));

export const snapshotsModule = nodeModule<undefined, Environments>({
  name: 'snapshots',
  commands,
  async start(ctx) {
    const { control } = ctx;
    if (!control || ctx.config.snapshots.intervalSeconds === 0) return {};
    const [{ scheduleSnapshots }, { EVENT_STORE_CONSUMER }] = await Promise.all([import('./schedule.js'), import('../events/index.js')]);
    const schedule = await scheduleSnapshots(ctx.cluster, {
      store: ctx.store, eventStore: EVENT_STORE_CONSUMER, log: ctx.log, applied: () => control.applied(),
      intervalSeconds: ctx.config.snapshots.intervalSeconds, keep: ctx.config.snapshots.keep,
    });
    return { close: () => schedule.close() };
  },
});
