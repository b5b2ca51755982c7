// What a CLI command is: its words, its arguments and flags (for parsing and --help), and a
// run that imports what it uses when it is called, so that `hedgerow --help` or `hedgerow
// key list` never loads the service. A module declares its commands with this file alone;
// what a command needs of the node (opening a data dir as serve does, a cluster handle)
// reaches it through its input (`service`), from the CLI (src/cli/).
import type { Config } from '../settings.js';
import type { Source } from '../setting.js';
import type { AnyCommandSpec, DataDirOpener } from '../state/index.js';
import type { RegisteredConsumer } from '../log/consumers/index.js';
import type { Cluster } from '../cluster/index.js';

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

// What a command may ask of the service it belongs to, without loading it all: every
// module's management commands and log consumers (`hedgerow status`), the data dir opened as
// serve opens it (its tables; its write path, the control stream with NATS, so what a command
// writes reaches every node), and a cluster handle of the command's own (one connection;
// `readonly` creates nothing and fails at once without a server).
export interface Service {
  writeCommands(): Promise<readonly AnyCommandSpec<any>[]>;
  consumers(config: Readonly<Config>, role: 'serve' | 'aggregate'): Promise<readonly RegisteredConsumer[]>;
  // The whole store: each command reads its domain's slice of it.
  openDataDir(config: Readonly<Config>): DataDirOpener<any>;
  cluster(config: Readonly<Config>, role?: 'command' | 'readonly'): Promise<Cluster>;
}

export interface ConfiguredInput extends CommandInput {
  readonly config: Readonly<Config>;
  readonly sources: ReadonlyMap<string, Source>;
  readonly service: Service;
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

// What the modules' commands share: printing their answer, the settings of a command on a
// data dir, and running a domain's command over the data dir opened as serve opens it.
export const print = (out: string): number => {
  if (out) process.stdout.write(out + '\n');
  return 0;
};

export const DATA_DIR = ['data', 'nats'] as const;

export const emailFlag = (doc: string, required = false): CommandFlag => ({ name: 'email', type: 'string', value: 'E', doc, required });

export type StoreCommand = (sub: string, flags: Flags, config: { dataDir: string; json: boolean; open: DataDirOpener<any> }) => Promise<string>;

export async function storeCommand(load: () => Promise<StoreCommand>, sub: string, { flags, config, service }: ConfiguredInput): Promise<number> {
  return print(await (await load())(sub, flags, { ...config, open: service.openDataDir(config) }));
}
