// The commands of hedgerow itself, beside those its modules declare (src/main.ts): running
// the service or a replica over the modules, and printing the settings. Each run imports
// what it uses when it runs: nothing here may import the service, or `hedgerow --help` would
// load it (test/cli/lazy.test.ts).
import type { NodeModule } from '../modules/index.js';
import { JSON_FLAG, print, type CommandEntry, type ConfiguredInput } from '../modules/command.js';

export function coreCommands(modules: readonly NodeModule[]): CommandEntry[] {
  return [
    {
      path: ['serve'], summary: 'run the service: capture, flags, the management API',
      settings: ['port', 'host', 'data', 'nats', 'log-level', 'geoip-db', 'flag-workers'],
      run: async ({ config }: ConfiguredInput) => (await import('./serve.js')).serve(config, modules),
    },
    {
      path: ['aggregate'], summary: 'run an insights replica: loads the JetStream event stream into its own data dir and answers queries over NATS',
      settings: ['data', 'nats', 'log-level'],
      run: async ({ config }: ConfiguredInput) => (await import('./serve.js')).aggregate(config, modules),
    },
    {
      path: ['config'], summary: 'print every setting\'s effective value and where it came from (default, env, flag)',
      settings: 'all', flags: [JSON_FLAG],
      run: async ({ config, sources }: ConfiguredInput) => print((await import('./config-command.js')).configReport(config, sources)),
    },
  ];
}
