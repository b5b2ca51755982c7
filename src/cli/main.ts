// The hedgerow CLI: the command line read against the command table (hedgerow's own commands
// and every module's), then the command's run, which loads only what that command uses.
import { parseSettings, type Config, type ParsedSettings } from '../settings.js';
import { ConfigError } from '../setting.js';
import { commandsOf, consumersOf, writeCommandsOf, type NodeModule } from '../modules/index.js';
import { readArgv, settingValues, UsageError } from './argv.js';
import { coreCommands } from './commands.js';
import { commandHelp, synopsis, usage, version } from './help.js';
import type { CommandEntry, Flags, Service } from '../modules/command.js';
import type { Store } from '../tables.js';

export interface ParsedCommand {
  command: string[];
  config: Readonly<Config>;
  flags: Flags;
}

// Every command: the service's own first, then each module's in the order listed.
export const commandTable = (modules: readonly NodeModule[]): CommandEntry[] => [...coreCommands(modules), ...commandsOf(modules)];

// What a command may ask of the service without loading it.
const serviceOf = (modules: readonly NodeModule[]): Service => ({
  writeCommands: () => writeCommandsOf(modules),
  consumers: (config, role) => consumersOf(modules, config, role),
  // Loaded when used: embedded, opening a data dir loads no NATS client.
  openDataDir: (config) => async (dataDir, specs) => (await import('./writes.js')).cliDataDir(config, () => writeCommandsOf<Store>(modules))(dataDir, specs),
  cluster: async (config, role) => (await import('./cluster.js')).commandCluster(config, role),
});

// A command line as the service reads it (the tests' servers use this): its words, the
// config object, the flags. Throws UsageError or ConfigError.
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv, modules: readonly NodeModule[] = []): ParsedCommand {
  const invocation = readArgv(argv, commandTable(modules));
  if (invocation.kind !== 'run') throw new UsageError(`not a command line that runs: ${argv.join(' ')}`, []);
  const { config } = parseSettings(env, settingValues(invocation.entry, invocation.flags), invocation.flags.json === true);
  return { command: [...invocation.entry.path, ...invocation.args], config, flags: invocation.flags };
}

// Resolves with the exit status: 0 done, 1 the command failed, 2 the command line or a
// setting is wrong; -1 the command keeps running (serve, aggregate).
export async function runCli(argv: string[], modules: readonly NodeModule[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const commands = commandTable(modules);
  let invocation;
  try {
    invocation = readArgv(argv, commands);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const about = commands.find((c) => c.path.join(' ') === err.about.join(' '));
    const more = about ? `usage: ${synopsis(about)}\n\`hedgerow ${about.path.join(' ')} --help\` lists its options\n` : usage(commands, err.about);
    process.stderr.write(`hedgerow: ${err.message}\n${more}`);
    return 2;
  }
  switch (invocation.kind) {
    case 'usage':
      process.stdout.write(usage(commands, invocation.group));
      return 0;
    case 'version':
      process.stdout.write(`hedgerow ${version()}\n`);
      return 0;
    case 'help':
      process.stdout.write(commandHelp(invocation.entry));
      return 0;
  }
  const { entry, args, flags } = invocation;
  if (!entry.settings) return failing(() => entry.run({ args, flags }));
  // A setting the environment or a flag gets wrong stops the command before it runs.
  let settings: ParsedSettings;
  try {
    settings = parseSettings(env, settingValues(entry, flags), flags.json === true);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`hedgerow: ${err.message}\n`);
    return 2;
  }
  return failing(() => entry.run({ args, flags, ...settings, service: serviceOf(modules) }));
}

// A command that throws has failed: its message on stderr, exit 1.
async function failing(run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (err) {
    process.stderr.write(`hedgerow: ${(err as Error).message}\n`);
    return 1;
  }
}
