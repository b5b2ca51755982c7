// The corpus: Hog programs (test/hog/corpus/NAME.hog) with the output written for each
// (NAME.out: what print() printed, then "error: ..." or "compile error: line:col ..." if
// the program fails). Each is compiled by hedgerow, run by @posthog/hogvm, and compared
// line by line. An expected line ending in "..." matches any line with that beginning.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot, runForOutput } from './helpers.js';

const dir = join(repoRoot, 'test/hog/corpus');
const programs = readdirSync(dir).filter((f) => f.endsWith('.hog')).sort();

const corpus = suite('hog corpus');

corpus('has at least 60 programs, each with its expected output', () => {
  assert.ok(programs.length >= 60, `${programs.length} programs`);
  const outputs = new Set(readdirSync(dir).filter((f) => f.endsWith('.out')));
  for (const program of programs) assert.ok(outputs.has(program.replace(/\.hog$/, '.out')), program);
});

for (const program of programs) {
  corpus(program.replace(/\.hog$/, ''), async () => {
    const source = readFileSync(join(dir, program), 'utf8');
    const expected = readFileSync(join(dir, program.replace(/\.hog$/, '.out')), 'utf8').replace(/\n$/, '').split('\n');
    const actual = await runForOutput(source);
    const matches = actual.length === expected.length && expected.every((want, i) =>
      want.endsWith('...') ? actual[i].startsWith(want.slice(0, -3)) : actual[i] === want);
    if (!matches) assert.equal(actual, expected);
  });
}

corpus.run();
