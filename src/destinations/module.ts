// The destinations module: hog functions (their API, templates, logs and metrics) and the
// destinations consumer that runs them on events and delivers what they fetch. Deliveries
// leave the service, so the consumer runs on one node of a cluster at a time: the one
// holding its claim (docs/decisions/0031).
import { nodeModule } from '../modules/index.js';
import { JSON_FLAG, print, type CommandEntry, type CommandFlag, type ConfiguredInput } from '../modules/command.js';
import type { DestinationsTablesUsed } from './start.js';

const fnFlag: CommandFlag = { name: 'function', type: 'string', value: 'ID', doc: 'the hog function', required: true };
const run = async (sub: string, { flags, config, service }: ConfiguredInput) => print(await (await import('./cli.js')).destinationsCommand(sub, flags, {
  dataDir: config.dataDir, json: config.json, fetchAllow: config.hog.fetchAllow, open: service.openDataDir(config),
}));

const commands: CommandEntry[] = [
  {
    path: ['destinations', 'failed'], summary: 'a hog function\'s deliveries that failed after their retries, newest first',
    settings: 'all', flags: [fnFlag, JSON_FLAG], run: (input) => run('failed', input),
  },
  {
    path: ['destinations', 'resend'], summary: 'send a hog function\'s failed deliveries again (up to 100, oldest first); delivered ones are forgotten',
    settings: 'all', flags: [fnFlag, { name: 'id', type: 'string', value: 'ID', doc: 'only this failed delivery' }, JSON_FLAG],
    run: (input) => run('resend', input),
  },
];

export const destinationsModule = nodeModule<undefined, DestinationsTablesUsed>({
  name: 'destinations',
  commands,
  writes: async () => (await import('./commands.js')).hogFunctionCommands,
  consumers: async (config, role) => {
    if (role !== 'serve') return [];
    const [{ registered }, { destinationsConsumerDeclaration }] = await Promise.all([import('../log/consumers/index.js'), import('./runtime/consumer-declaration.js')]);
    return [registered(destinationsConsumerDeclaration, {
      dataDir: config.dataDir, siteUrl: config.siteUrl, fetchAllow: config.hog.fetchAllow, hogWorkers: config.hog.workers,
      watcherLockMs: config.hog.watcherLockSeconds * 1000,
    })];
  },
  start: async (ctx, use) => (await import('./start.js')).startDestinations(ctx, use),
});
