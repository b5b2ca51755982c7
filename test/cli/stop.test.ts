// `hedgerow serve` stopped by SIGTERM the moment it listens or is ready, with what a deployment starts
// (the HogQL parser warming in the insights thread, the flag pool started at once): it exits
// with 0 and every consumer thread ends by itself. (A pool closed with a warm-up task in
// flight once kept the insights thread alive until its 30 s grace ran out: the Dockerfile's
// check saw a container still running 20 s after its SIGTERM.)
import { rmSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cliServe, cliStop } from '../helpers/cli-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { eventually } from '../helpers/wait.js';

const s = suite('CLI: serve stopped by SIGTERM');
let dir: string;
s.before.each(() => { dir = tempDir('hedgerow-stop-'); });
s.after.each(() => rmSync(dir, { recursive: true, force: true }));

s('a node stopped as soon as it listens exits 0', async () => {
  const served = await cliServe(dir);
  // The signal's handler is in place before the line saying it listens.
  await cliStop(served.child, 'SIGTERM');
  assert.is(served.child.exitCode, 0, `signal ${served.child.signalCode}: ${served.stderr()}`);
});

s('a node stopped as soon as it is ready exits 0, with no consumer thread left to its grace', async () => {
  const served = await cliServe(dir, { HEDGEROW_HOGQL_PARSER: 'warm', HEDGEROW_FLAG_POOL: 'warm' });
  // Ready: every consumer thread has opened what it runs (the parser's warm-up then runs for about a second).
  await eventually(async () => (await fetch(`${served.url}/_readiness`)).status === 200);
  await cliStop(served.child, 'SIGTERM');
  assert.is(served.child.exitCode, 0, served.stderr());
  assert.equal(served.warnings().filter((w) => /did not stop/.test(w)), []);
});

s.run();
