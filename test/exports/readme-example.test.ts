// The README's export example, run as it is written (bash and curl) against a fresh
// server: the block must work when pasted, with the two keys the first start prints.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { README } from '../../src/cli/readme.js';
import { startTestServer, NO_DESTINATIONS, tempDir, type TestServer } from '../helpers/server.js';
import { decodePng, inked } from '../helpers/png.js';

const s = suite('exports: the README\'s example');
let t: TestServer;

s.before(async () => {
  t = await startTestServer({ env: { HEDGEROW_EXPORT_SYNC_MS: '120000' }, consumers: NO_DESTINATIONS });
});

s.after(async () => {
  await t.close();
});

function exampleBlock(): string {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('\n## Exports\n'));
  const start = section.indexOf('```sh\n') + '```sh\n'.length;
  return section.slice(start, section.indexOf('\n```', start));
}

s('the block sends an event, saves an insight, exports it and downloads a PNG of it', async () => {
  const block = exampleBlock();
  assert.ok(block.includes('$PKEY') && block.includes('localhost:8000'));
  const cwd = tempDir('readme-export');
  const host = new URL(t.url).host;
  const script = `set -eu\n${block.split('localhost:8000').join(host)}\necho "insight=$INSIGHT export=$EXPORT"\n`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script], { cwd, env: { ...process.env, KEY: t.projectKey, PKEY: t.personalKey } });
  const ids = /insight=(\d+) export=(\d+)/.exec(stdout);
  assert.ok(ids, stdout);
  const files = readdirSync(cwd);
  assert.is(files.length, 1, files.join());
  assert.match(files[0], /^export-sign-ups-\d{4}-\d{2}-\d{2}-\d{6}\.png$/);
  const img = decodePng(readFileSync(join(cwd, files[0])));
  assert.is(img.width, 1200);
  assert.ok(inked(img) > 0.005, 'a chart, not a blank picture');
  rmSync(cwd, { recursive: true, force: true });
});

s.run();
