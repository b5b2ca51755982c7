// Every command of the hedgerow CLI. Each run imports what it uses when it runs: nothing
// here may import the service, or `hedgerow --help` would load it (test/cli/lazy.test.ts).
import type { DataDirOpener } from '../state/index.js';
import type { Store } from '../tables.js';
import { JSON_FLAG, type CommandEntry, type CommandFlag, type ConfiguredInput, type Flags } from './command.js';

const print = (out: string): number => {
  if (out) process.stdout.write(out + '\n');
  return 0;
};

// The settings of a command on a data dir, which with NATS writes through the control stream.
const DATA_DIR = ['data', 'nats'] as const;
const email = (doc: string, required = false): CommandFlag => ({ name: 'email', type: 'string', value: 'E', doc, required });
const organization: CommandFlag = { name: 'organization', type: 'string', value: 'ID', doc: 'the organization (default: the first one)' };

type StoreCommand = (sub: string, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<Store> }) => Promise<string>;

// `user`, `key` and `quota` open the data dir with serve's tables and write path (the
// control stream with NATS).
async function storeCommand(load: () => Promise<StoreCommand>, sub: string, { flags, config }: ConfiguredInput): Promise<number> {
  const [run, { cliDataDir }] = await Promise.all([load(), import('./writes.js')]);
  return print(await run(sub, flags, { ...config, open: cliDataDir(config) }));
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    path: ['serve'], summary: 'run the service: capture, flags, the management API',
    settings: ['port', 'host', 'data', 'nats', 'log-level', 'geoip-db', 'flag-workers'],
    run: async ({ config }: ConfiguredInput) => (await import('./serve.js')).serve(config),
  },
  {
    path: ['aggregate'], summary: 'run an insights replica: loads the JetStream event stream into its own data dir and answers queries over NATS',
    settings: ['data', 'nats', 'log-level'],
    run: async ({ config }: ConfiguredInput) => (await import('./serve.js')).aggregate(config),
  },
  {
    path: ['init'], summary: 'create the default organization and project if needed, and mint a personal API key',
    settings: DATA_DIR, flags: [JSON_FLAG],
    run: async ({ config }) => (await import('./init.js')).init(config),
  },
  {
    path: ['user', 'add'], summary: 'add a user to the organization',
    settings: DATA_DIR,
    flags: [
      email('the new user\'s email', true),
      { name: 'first-name', type: 'string', value: 'F', doc: 'first name' },
      { name: 'last-name', type: 'string', value: 'L', doc: 'last name' },
      { name: 'level', type: 'string', value: 'member|admin|owner', doc: 'organization level (default member)' },
      JSON_FLAG,
    ],
    run: (input) => storeCommand(async () => (await import('../access/users/cli.js')).userCommand, 'add', input),
  },
  {
    path: ['key', 'create'], summary: 'mint a personal API key (printed once)',
    settings: DATA_DIR,
    flags: [
      email('the user the key acts as', true),
      { name: 'scopes', type: 'string', value: 'a:read,b:write|*', doc: 'its scopes, comma-separated, or * for all', required: true },
      { name: 'projects', type: 'string', value: '1,2', doc: 'the projects it may reach (default: all of the organization\'s)' },
      { name: 'label', type: 'string', value: 'L', doc: 'a label to recognise it by' },
      JSON_FLAG,
    ],
    run: (input) => storeCommand(async () => (await import('../access/keys/cli.js')).keyCommand, 'create', input),
  },
  {
    path: ['key', 'list'], summary: 'list personal API keys (masked)',
    settings: DATA_DIR, flags: [email('only this user\'s keys'), JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('../access/keys/cli.js')).keyCommand, 'list', input),
  },
  {
    path: ['key', 'revoke'], summary: 'revoke a personal API key',
    settings: DATA_DIR, flags: [{ name: 'id', type: 'string', value: 'ID', doc: 'the key\'s id (`hedgerow key list`)', required: true }, JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('../access/keys/cli.js')).keyCommand, 'revoke', input),
  },
  {
    path: ['quota', 'show'], summary: 'an organization\'s feature flag requests this month (UTC) and its quota',
    settings: DATA_DIR, flags: [organization, JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('../quota/cli.js')).quotaCommand, 'show', input),
  },
  {
    path: ['quota', 'set'], summary: 'set an organization\'s feature flag request quota per month',
    settings: DATA_DIR,
    flags: [{ name: 'flags', type: 'string', value: 'N|unlimited', doc: 'requests per month, or unlimited (the default)', required: true }, organization, JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('../quota/cli.js')).quotaCommand, 'set', input),
  },
  {
    path: ['status'], summary: 'where this data dir stands: consumers\' positions and lag; with NATS_URL the control stream and every live node',
    settings: DATA_DIR, flags: [JSON_FLAG],
    async run({ config }) {
      const [{ openStore }, { tables }, { nodeStatus, formatStatus }, { logConsumers }, { commandCluster }] = await Promise.all([
        import('../store/index.js'), import('../tables.js'), import('../ops/status.js'), import('../main.js'), import('./cluster.js'),
      ]);
      const store = openStore(config.dataDir, tables);
      try {
        const cluster = await commandCluster(config, 'readonly');
        try {
          const status = await nodeStatus(store, cluster, logConsumers(config));
          return print(config.json ? JSON.stringify(status) : formatStatus(status));
        } finally {
          await cluster.close();
        }
      } finally {
        await store.close();
      }
    },
  },
  ...(['create', 'list'] as const).map((sub): CommandEntry => ({
    path: ['snapshot', sub],
    summary: sub === 'create'
      ? 'with NATS_URL: snapshot this data dir into JetStream now, and compact the control stream behind the snapshots kept'
      : 'with NATS_URL: list the snapshots in JetStream',
    settings: DATA_DIR, flags: [JSON_FLAG],
    async run({ config }) {
      const [{ snapshotCommand }, { eventStoreConsumer }, { commandCluster }] = await Promise.all([
        import('../snapshots/index.js'), import('../events/store-consumer.js'), import('./cluster.js'),
      ]);
      return print(await snapshotCommand(sub, { ...config, eventStore: eventStoreConsumer.name }, () => commandCluster(config)));
    },
  })),
  {
    path: ['dead-letters'], summary: 'log records no consumer could decode, and events one could not apply: set aside',
    settings: ['data'], flags: [JSON_FLAG],
    run: async ({ config }: ConfiguredInput) => print(await (await import('../log/consumers/cli.js')).deadLettersCommand(config)),
  },
  {
    path: ['hog', 'compile'], summary: 'compile a Hog program; prints its bytecode (PostHog\'s format) as JSON',
    args: [{ name: 'FILE|-', doc: 'the program, or - for standard input' }],
    run: async ({ args, flags }) => (await import('../hog/cli.js')).hogCommand('compile', args[0], flags),
  },
  {
    path: ['hog', 'run'], summary: 'compile and run a Hog program: print() lines on stdout, errors on stderr (exit 1)',
    args: [{ name: 'FILE|-', doc: 'the program, or - for standard input' }],
    flags: [{ name: 'globals', type: 'string', value: 'FILE', doc: 'a JSON object of globals (event, person, inputs, …); fetch() makes real requests' }],
    run: async ({ args, flags }) => (await import('../hog/cli.js')).hogCommand('run', args[0], flags),
  },
  {
    path: ['config'], summary: 'print every setting\'s effective value and where it came from (default, env, flag)',
    settings: 'all', flags: [JSON_FLAG],
    run: async ({ config, sources }: ConfiguredInput) => print((await import('./config-command.js')).configReport(config, sources)),
  },
];
