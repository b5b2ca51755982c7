// What a CLI command is: its words, its arguments and flags (for parsing and --help), and a
// run that imports what it uses when it is called, so that `hedgerow --help` or `hedgerow
// key list` never loads the service. A domain declares its commands with this type alone:
// it imports nothing but types.
import type { Config } from '../settings.js';
import type { Source } from '../setting.js';

export type Flags = Record<string, string | boolean | undefined>;

export interface CommandFlag {
  readonly name: string;
  readonly type: 'string' | 'boolean';
  // What the value is called in --help ("E", "ID", "member|admin|owner").
  readonly value?: string;
  readonly doc: string;
  // Shown without brackets in the synopsis. The command refuses its absence itself, with
  // its own message.
  readonly required?: boolean;
}

export interface CommandArg {
  readonly name: string;
  readonly doc: string;
}

interface CommandBase {
  // The words that name it: ['key', 'create'].
  readonly path: readonly string[];
  readonly summary: string;
  // Positional arguments after the path, each required.
  readonly args?: readonly CommandArg[];
  // Its own flags; the flags of settings are named in `settings`.
  readonly flags?: readonly CommandFlag[];
}

export interface CommandInput {
  readonly args: readonly string[];
  // Every flag given, settings' included, by name ("first-name").
  readonly flags: Flags;
}

export interface ConfiguredInput extends CommandInput {
  readonly config: Readonly<Config>;
  readonly sources: ReadonlyMap<string, Source>;
}

// A command that reads the config object: the flags of the settings it takes (by flag
// name, or 'all'), and a run given the config. A setting the environment gets wrong stops
// it before it runs (exit 2).
export interface ConfiguredCommand extends CommandBase {
  readonly settings: readonly string[] | 'all';
  // Resolves with the exit status, or -1 to keep the process running (a server).
  run(input: ConfiguredInput): Promise<number>;
}

// A command that reads no setting (`hog run`): the environment cannot stop it.
export interface PlainCommand extends CommandBase {
  readonly settings?: undefined;
  run(input: CommandInput): Promise<number>;
}

export type CommandEntry = ConfiguredCommand | PlainCommand;

// --json, which several commands take (it sets the config object's `json`).
export const JSON_FLAG: CommandFlag = { name: 'json', type: 'boolean', doc: 'print JSON' };
