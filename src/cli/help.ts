// What `hedgerow --help`, `hedgerow <command> --help` and `hedgerow --version` print, made
// from the command table and the settings table.
import { readFileSync } from 'node:fs';
import { defaultText } from '../setting.js';
import { flagsOf, settingFlags } from './argv.js';
import type { CommandEntry, CommandFlag } from '../modules/command.js';

const flagWords = (f: CommandFlag) => (f.type === 'boolean' ? `--${f.name}` : `--${f.name} ${f.value ?? 'TEXT'}`);

// `hedgerow key create --email E --scopes LIST [--projects IDS] …`
export function synopsis(entry: CommandEntry): string {
  const flags = flagsOf(entry).map((f) => (f.required ? flagWords(f) : `[${flagWords(f)}]`));
  return ['hedgerow', ...entry.path, ...(entry.args ?? []).map((a) => a.name), ...flags].join(' ');
}

const pad = (rows: [string, string][], indent = '  ') => {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`.trimEnd()).join('\n');
};

// Every command (or a group's) with its summary.
export function usage(commands: readonly CommandEntry[], group: readonly string[] = []): string {
  const shown = commands.filter((c) => group.every((w, i) => c.path[i] === w));
  if (group.length > 0) {
    return shown.map((c, i) => `${i === 0 ? 'usage: ' : '       '}${synopsis(c)}`).join('\n') + '\n\n' +
      pad(shown.map((c) => [c.path.join(' '), c.summary])) + '\n';
  }
  return 'usage: hedgerow <command> [options]\n\n' +
    pad(shown.map((c) => [c.path.join(' '), c.summary])) + '\n\n' +
    '`hedgerow <command> --help` lists a command\'s options; `hedgerow config` prints every setting\n' +
    'and where its value came from; `hedgerow --version` prints the version.\n';
}

// One command's usage, arguments and flags.
export function commandHelp(entry: CommandEntry): string {
  const flags = settingFlags();
  const rows: [string, string][] = [
    ...(entry.args ?? []).map((a): [string, string] => [a.name, a.doc]),
    ...flagsOf(entry).map((f): [string, string] => {
      const setting = flags.get(f.name);
      const where = setting && !(entry.flags ?? []).some((own) => own.name === f.name)
        ? ` (env ${setting.env}; default ${defaultText(setting)})` : '';
      return [flagWords(f), f.doc + where];
    }),
    ['-h, --help', 'this help'],
  ];
  const settingsLine = entry.settings
    ? '\nEvery setting is also read from its environment variable; `hedgerow config` lists them all,\nwith their values and where each came from (README: "Settings").\n'
    : '';
  return `usage: ${synopsis(entry)}\n\n${entry.summary}\n\n${pad(rows)}\n${settingsLine}`;
}

// package.json's version: dist/src/cli/ is three levels below it, in a checkout and in the image.
export function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}
