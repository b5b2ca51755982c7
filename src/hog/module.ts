// The hog module: Hog is a library of the destinations (compiler, runtime host); what it
// adds to the service is its two commands.
import { nodeModule } from '../modules/index.js';
import type { CommandEntry } from '../modules/command.js';

const commands: CommandEntry[] = [
  {
    path: ['hog', 'compile'], summary: 'compile a Hog program; prints its bytecode (PostHog\'s format) as JSON',
    args: [{ name: 'FILE|-', doc: 'the program, or - for standard input' }],
    run: async ({ args, flags }) => (await import('./cli.js')).hogCommand('compile', args[0], flags),
  },
  {
    path: ['hog', 'run'], summary: 'compile and run a Hog program: print() lines on stdout, errors on stderr (exit 1)',
    args: [{ name: 'FILE|-', doc: 'the program, or - for standard input' }],
    flags: [{ name: 'globals', type: 'string', value: 'FILE', doc: 'a JSON object of globals (event, person, inputs, …); fetch() makes real requests' }],
    run: async ({ args, flags }) => (await import('./cli.js')).hogCommand('run', args[0], flags),
  },
];

export const hogModule = nodeModule({ name: 'hog', commands });
