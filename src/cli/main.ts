#!/usr/bin/env node
// The hedgerow CLI (package.json's bin): the command line read against the command table,
// then the command's run, which loads only what that command uses.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseSettings, type Config, type ParsedSettings } from '../settings.js';
import { ConfigError } from '../setting.js';
import { readArgv, settingValues, UsageError } from './argv.js';
import { COMMANDS } from './commands.js';
import { commandHelp, synopsis, usage, version } from './help.js';
import type { Flags } from './command.js';

export interface ParsedCommand {
  command: string[];
  config: Readonly<Config>;
  flags: Flags;
}

// A command line as the service reads it (the tests' servers use this): its words, the
// config object, the flags. Throws UsageError or ConfigError.
export function parseCommandLine(argv: string[], env: NodeJS.ProcessEnv): ParsedCommand {
  const invocation = readArgv(argv, COMMANDS);
  if (invocation.kind !== 'run') throw new UsageError(`not a command line that runs: ${argv.join(' ')}`, []);
  const { config } = parseSettings(env, settingValues(invocation.entry, invocation.flags), invocation.flags.json === true);
  return { command: [...invocation.entry.path, ...invocation.args], config, flags: invocation.flags };
}

// Resolves with the exit status: 0 done, 1 the command failed, 2 the command line or a
// setting is wrong; -1 the command keeps running (serve, aggregate).
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let invocation;
  try {
    invocation = readArgv(argv, COMMANDS);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    const about = COMMANDS.find((c) => c.path.join(' ') === err.about.join(' '));
    const more = about ? `usage: ${synopsis(about)}\n\`hedgerow ${about.path.join(' ')} --help\` lists its options\n` : usage(COMMANDS, err.about);
    process.stderr.write(`hedgerow: ${err.message}\n${more}`);
    return 2;
  }
  switch (invocation.kind) {
    case 'usage':
      process.stdout.write(usage(COMMANDS, invocation.group));
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
  return failing(() => entry.run({ args, flags, ...settings }));
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

const invokedDirectly = process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
}
