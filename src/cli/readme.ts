// The README's settings table, made from the settings table (src/settings.ts) and kept
// between two markers. `npm run readme` rewrites it; test/cli/readme.test.ts fails when the
// README and the table differ.
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultText, rowsOf } from '../setting.js';
import { SETTINGS } from '../settings.js';

export const BEGIN = '<!-- settings: made from src/settings.ts by `npm run readme`; edit them there -->';
export const END = '<!-- /settings -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');
const code = (text: string) => `\`${text}\``;

export function settingsSection(): string {
  const rows = rowsOf(SETTINGS).map(({ setting }) => [
    code(setting.env), setting.flag ? code(`--${setting.flag.name}`) : '', cell(defaultText(setting)), cell(setting.allowed), cell(setting.doc),
  ]);
  return [
    '| variable | flag | default | allowed | what it sets |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

// The README with the section between the markers made anew.
export function withSettings(readme: string): string {
  const begin = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (begin === -1 || end < begin) throw new Error(`README.md has no settings section between ${BEGIN} and ${END}`);
  return `${readme.slice(0, begin + BEGIN.length)}\n${settingsSection()}\n${readme.slice(end)}`;
}

// dist/src/cli/ is three levels below the checkout.
export const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

const invokedDirectly = process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) {
  const before = readFileSync(README, 'utf8');
  const after = withSettings(before);
  if (after !== before) writeFileSync(README, after);
  process.stdout.write(after === before ? 'README.md: settings table already up to date\n' : 'README.md: settings table rewritten\n');
}
