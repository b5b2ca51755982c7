// The access module: organizations, projects, users, explicit members, personal keys and
// the management API's authentication, and the commands that mint what a new install needs.
import { nodeModule } from '../modules/index.js';
import { DATA_DIR, emailFlag, JSON_FLAG, print, storeCommand, type CommandEntry } from '../modules/command.js';
import type { AccessProvides, AccessTablesUsed } from './start.js';

const commands: CommandEntry[] = [
  {
    path: ['init'], summary: 'create the default organization and project if needed, and mint a personal API key',
    settings: DATA_DIR, flags: [JSON_FLAG],
    run: async ({ config, service }) => print(await (await import('./init.js')).initCommand({ ...config, open: service.openDataDir(config) })),
  },
  {
    path: ['user', 'add'], summary: 'add a user to the organization',
    settings: DATA_DIR,
    flags: [
      emailFlag('the new user\'s email', true),
      { name: 'first-name', type: 'string', value: 'F', doc: 'first name' },
      { name: 'last-name', type: 'string', value: 'L', doc: 'last name' },
      { name: 'level', type: 'string', value: 'member|admin|owner', doc: 'organization level (default member)' },
      JSON_FLAG,
    ],
    run: (input) => storeCommand(async () => (await import('./users/cli.js')).userCommand, 'add', input),
  },
  {
    path: ['user', 'password'], summary: 'set a user\'s password for the web app (read from stdin, or asked for on a terminal)',
    settings: DATA_DIR,
    flags: [emailFlag('the user whose password it is', true), JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('./sessions/cli.js')).passwordCommand, 'password', input),
  },
  {
    path: ['key', 'create'], summary: 'mint a personal API key (printed once)',
    settings: DATA_DIR,
    flags: [
      emailFlag('the user the key acts as', true),
      { name: 'scopes', type: 'string', value: 'a:read,b:write|*', doc: 'its scopes, comma-separated, or * for all', required: true },
      { name: 'projects', type: 'string', value: '1,2', doc: 'the projects it may reach (default: all of the organization\'s)' },
      { name: 'label', type: 'string', value: 'L', doc: 'a label to recognise it by' },
      JSON_FLAG,
    ],
    run: (input) => storeCommand(async () => (await import('./keys/cli.js')).keyCommand, 'create', input),
  },
  {
    path: ['key', 'list'], summary: 'list personal API keys (masked)',
    settings: DATA_DIR, flags: [emailFlag('only this user\'s keys'), JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('./keys/cli.js')).keyCommand, 'list', input),
  },
  {
    path: ['key', 'revoke'], summary: 'revoke a personal API key',
    settings: DATA_DIR, flags: [{ name: 'id', type: 'string', value: 'ID', doc: 'the key\'s id (`hedgerow key list`)', required: true }, JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('./keys/cli.js')).keyCommand, 'revoke', input),
  },
];

export const accessModule = nodeModule<AccessProvides, AccessTablesUsed>({
  name: 'access',
  commands,
  writes: async () => {
    const [{ tenancyCommands }, { memberCommands }, { sessionCommands }] = await Promise.all([
      import('./tenancy/commands.js'), import('./members/commands.js'), import('./sessions/commands.js'),
    ]);
    return [...tenancyCommands, ...memberCommands, ...sessionCommands];
  },
  start: async (ctx) => (await import('./start.js')).startAccess(ctx),
});
