// The README's settings table is the settings table: `npm run readme` writes it, and this
// fails when they differ (a setting added, a bound or a doc line changed, the README edited).
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BEGIN, END, README, settingsSection, withSettings } from '../../src/cli/readme.js';
import { rowsOf } from '../../src/setting.js';
import { SETTINGS } from '../../src/settings.js';

const s = suite('README: settings table');

s('the section between the markers is the one the settings table makes (run `npm run readme`)', () => {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf(BEGIN) + BEGIN.length, readme.indexOf(END)).trim();
  assert.fixture(section, settingsSection());
  assert.is(withSettings(readme), readme);
});

s('one table row per setting, each naming its variable', () => {
  const rows = settingsSection().split('\n').slice(2);
  assert.equal(rows.map((r) => /^\| `([A-Z_]+)` \|/.exec(r)?.[1]), rowsOf(SETTINGS).map((r) => r.setting.env));
});

s('rewriting replaces what lies between the markers, and only that', () => {
  const stale = `intro\n${BEGIN}\n| old | table |\n${END}\nafter\n`;
  assert.is(withSettings(stale), `intro\n${BEGIN}\n${settingsSection()}\n${END}\nafter\n`);
  assert.throws(() => withSettings('no markers'), /no settings section/);
});

s.run();
