// The log module: the event log and its consumers are the node's core (src/node/core.ts);
// what this module adds is the operator's view of what they set aside.
import { nodeModule } from '../modules/index.js';
import { JSON_FLAG, type CommandEntry, type ConfiguredInput } from '../cli/command.js';
import { print } from '../cli/store-command.js';

const commands: CommandEntry[] = [
  {
    path: ['dead-letters'], summary: 'log records no consumer could decode, and events one could not apply: set aside',
    settings: ['data'], flags: [JSON_FLAG],
    run: async ({ config }: ConfiguredInput) => print(await (await import('./consumers/cli.js')).deadLettersCommand(config)),
  },
];

export const logModule = nodeModule({ name: 'log', commands });
