// The command line read against the command table and the settings table: which command,
// its arguments, and its flags, each refused unless that command takes it.
import { parseArgs } from 'node:util';
import { rowsOf, type Setting } from '../setting.js';
import { SETTINGS } from '../settings.js';
import type { CommandEntry, CommandFlag, Flags } from '../modules/command.js';

// A command line that is not one: said on stderr with the usage it concerns, exit 2.
export class UsageError extends Error {
  // The command or group whose usage to print (empty: all of them).
  constructor(message: string, readonly about: readonly string[]) {
    super(message);
  }
}

export type Invocation =
  // Bare `hedgerow`, `hedgerow --help`, or a group's first word alone (`hedgerow key`).
  | { readonly kind: 'usage'; readonly group: readonly string[] }
  | { readonly kind: 'version' }
  | { readonly kind: 'help'; readonly entry: CommandEntry }
  | { readonly kind: 'run'; readonly entry: CommandEntry; readonly args: readonly string[]; readonly flags: Flags };

const SETTING_FLAGS: ReadonlyMap<string, Setting<unknown>> = new Map(
  rowsOf(SETTINGS).flatMap(({ setting }) => (setting.flag ? [[setting.flag.name, setting] as const] : [])),
);

// Every setting that has a flag, by flag name.
export const settingFlags = (): ReadonlyMap<string, Setting<unknown>> => SETTING_FLAGS;

// The flags a command takes: its own, then those of the settings it names.
export function flagsOf(entry: CommandEntry): CommandFlag[] {
  const names = entry.settings === 'all' ? [...SETTING_FLAGS.keys()] : entry.settings ?? [];
  const fromSettings = names.map((name): CommandFlag => {
    const setting = SETTING_FLAGS.get(name);
    if (!setting) throw new Error(`command ${entry.path.join(' ')} names --${name}, which no setting has`);
    return { name, type: 'string', value: setting.flag!.value, doc: setting.doc };
  });
  return [...(entry.flags ?? []), ...fromSettings];
}

// The values of the settings' flags a command was given, by flag name (what parseSettings
// reads beside the environment); its own flags are not settings even when named alike.
export function settingValues(entry: CommandEntry, flags: Flags): Record<string, string> {
  const own = new Set((entry.flags ?? []).map((f) => f.name));
  return Object.fromEntries(Object.entries(flags).filter((e): e is [string, string] =>
    typeof e[1] === 'string' && SETTING_FLAGS.has(e[0]) && !own.has(e[0])));
}

const words = (argv: readonly string[]) => {
  const end = argv.findIndex((a) => a.startsWith('-'));
  return end === -1 ? [...argv] : argv.slice(0, end);
};

const startsWith = (path: readonly string[], prefix: readonly string[]) => prefix.every((w, i) => path[i] === w);

export function readArgv(argv: readonly string[], commands: readonly CommandEntry[]): Invocation {
  const leading = words(argv);
  const entry = commands.find((c) => c.path.length <= leading.length && startsWith(leading, c.path));
  if (!entry) return notACommand(argv, leading, commands);
  const rest = argv.slice(entry.path.length);
  if (rest.includes('--help') || rest.includes('-h')) return { kind: 'help', entry };
  const flags = readFlags(entry, rest);
  const args = flags.positionals;
  const wanted = entry.args ?? [];
  const name = entry.path.join(' ');
  if (args.length < wanted.length) throw new UsageError(`${name} needs ${wanted[args.length].name}`, entry.path);
  if (args.length > wanted.length) throw new UsageError(`${name} does not take ${JSON.stringify(args[wanted.length])}`, entry.path);
  return { kind: 'run', entry, args, flags: flags.values };
}

function notACommand(argv: readonly string[], leading: readonly string[], commands: readonly CommandEntry[]): Invocation {
  if (leading.length === 0) {
    if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h'))) return { kind: 'usage', group: [] };
    if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) return { kind: 'version' };
    throw new UsageError(`${argv[0]} comes after a command`, []);
  }
  // The longest run of leading words some command starts with: a group (`key`) or nothing.
  let group: readonly string[] = [];
  for (let n = leading.length; n > 0; n--) {
    if (commands.some((c) => startsWith(c.path, leading.slice(0, n)))) { group = leading.slice(0, n); break; }
  }
  const rest = argv.slice(group.length);
  if (group.length > 0 && (rest.length === 0 || (rest.length === 1 && (rest[0] === '--help' || rest[0] === '-h')))) return { kind: 'usage', group };
  throw new UsageError(`unknown command "${leading.slice(0, group.length + 1).join(' ')}"`, group);
}

function readFlags(entry: CommandEntry, rest: readonly string[]): { values: Flags; positionals: string[] } {
  const known = new Map(flagsOf(entry).map((f) => [f.name, f]));
  const name = entry.path.join(' ');
  const options = Object.fromEntries([...known.values()].map((f) => [f.name, { type: f.type }]));
  // Not strict: an unknown flag is refused below, naming the command, rather than in
  // parseArgs's words.
  const { tokens } = parseArgs({ args: [...rest], options, strict: false, allowPositionals: true, tokens: true });
  const values: Flags = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') { positionals.push(token.value); continue; }
    if (token.kind !== 'option') continue;
    const flag = known.get(token.name);
    if (!flag) throw new UsageError(`${name} does not take ${token.rawName}`, entry.path);
    if (flag.type === 'string' && token.value === undefined) throw new UsageError(`${token.rawName} needs a value (${flag.value ?? 'TEXT'})`, entry.path);
    if (flag.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`, entry.path);
    values[flag.name] = flag.type === 'boolean' ? true : token.value;
  }
  return { values, positionals };
}
