// The README's table of supported HogQL functions is the catalogue's (issue 28): every
// name the compiler knows is listed under its group, and nothing else. A failure prints
// the block to paste between the README's markers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { supportedFunctions } from '../../src/insights/planner/hogql/functions/index.js';

const s = suite('insights: HogQL functions in the README');
const START = '<!-- hogql-functions:start -->';
const END = '<!-- hogql-functions:end -->';

function table(): string {
  const lines = ['| group | functions |', '|---|---|'];
  for (const [group, names] of [...supportedFunctions()].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`| ${group} | ${names.map((n) => `\`${n}\``).join(', ')} |`);
  }
  return lines.join('\n');
}

s('the README lists exactly the functions the compiler knows', () => {
  const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
  const at = readme.indexOf(START);
  const end = readme.indexOf(END);
  assert.ok(at !== -1 && end > at, 'the README has the markers');
  const listed = readme.slice(at + START.length, end).trim();
  assert.is(listed, table(), `paste between the markers:\n${table()}`);
});

s('the catalogue is substantial and holds what PostHog’s docs use', () => {
  const all = new Set([...supportedFunctions().values()].flat());
  for (const name of ['toDate', 'toDateTime', 'toStartOfDay', 'toStartOfWeek', 'dateDiff', 'dateAdd', 'toTimeZone', 'formatDateTime', 'JSONExtractString',
    'countIf', 'uniq', 'uniqExact', 'uniqIf', 'sumIf', 'argMax', 'argMin', 'quantile', 'groupArray', 'any', 'if', 'multiIf', 'coalesce', 'concat', 'round', 'toFloat', 'arrayMap', 'arrayFilter', 'row_number']) {
    assert.ok(all.has(name), name);
  }
  for (const name of ['read_csv', 'read_text', 'glob', 'getenv', 'current_setting', 'sleep']) assert.not.ok(all.has(name), name);
});

s.run();
