// The quota module: per-organization feature flag request quotas, their meter (which the
// flags module counts with), their API and their commands.
import { nodeModule } from '../modules/index.js';
import { DATA_DIR, JSON_FLAG, storeCommand, type CommandEntry, type CommandFlag } from '../modules/command.js';
import type { QuotaProvides, QuotaTablesUsed } from './start.js';

const organization: CommandFlag = { name: 'organization', type: 'string', value: 'ID', doc: 'the organization (default: the first one)' };

const commands: CommandEntry[] = [
  {
    path: ['quota', 'show'], summary: 'an organization\'s feature flag requests this month (UTC) and its quota',
    settings: DATA_DIR, flags: [organization, JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('./cli.js')).quotaCommand, 'show', input),
  },
  {
    path: ['quota', 'set'], summary: 'set an organization\'s feature flag request quota per month',
    settings: DATA_DIR,
    flags: [{ name: 'flags', type: 'string', value: 'N|unlimited', doc: 'requests per month, or unlimited (the default)', required: true }, organization, JSON_FLAG],
    run: (input) => storeCommand(async () => (await import('./cli.js')).quotaCommand, 'set', input),
  },
];

export const quotaModule = nodeModule<QuotaProvides, QuotaTablesUsed>({
  name: 'quota',
  commands,
  writes: async () => (await import('./commands.js')).quotaCommands,
  start: async (ctx, use) => (await import('./start.js')).startQuota(ctx, use),
});
