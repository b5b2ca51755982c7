// Export files on disk: named by the SHA-256 of their bytes, written whole (temp file and
// rename), shared by identical renders; the sweep's collection deletes what no asset names
// once it is older than the grace period, leftover temporary files too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectFiles, readContent, writeContent } from '../../src/exports/assets/files.js';
import { tempDir } from '../helpers/temp-dir.js';

const s = suite('exports: files');
let dir: string;
s.before.each(() => { dir = join(tempDir('hedgerow-export-files-'), 'exports'); });
s.after.each(() => { rmSync(join(dir, '..'), { recursive: true, force: true }); });

const HOUR = 3_600_000;
const age = (path: string, ms: number) => { const at = new Date(Date.now() - ms); utimesSync(path, at, at); };

s('a file is named by its hash and read back whole; identical bytes share one file', async () => {
  const bytes = Buffer.from('series,1 Jan\n$pageview,3\n');
  const stored = writeContent(dir, bytes);
  assert.equal(stored, { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length });
  assert.equal(readdirSync(dir), [stored.sha256]);
  assert.ok(readFileSync(join(dir, stored.sha256)).equals(bytes));
  assert.equal(writeContent(dir, bytes), stored);
  assert.equal(readdirSync(dir), [stored.sha256], 'no second file, no temporary file left');
  assert.ok((await readContent(dir, stored))!.equals(bytes));
  assert.is(await readContent(dir, { sha256: 'f'.repeat(64), size: 1 }), null);
  assert.is(await readContent(dir, { sha256: '../hedgerow.lmdb', size: 1 }), null, 'only hash names are read');
});

s('collection: unnamed files and temporary leftovers older than the grace period go; named and recent ones stay', async () => {
  const named = writeContent(dir, Buffer.from('kept'));
  const unnamedOld = writeContent(dir, Buffer.from('expired'));
  const unnamedNew = writeContent(dir, Buffer.from('just rendered'));
  writeFileSync(join(dir, '.tmp-0123'), 'half');
  writeFileSync(join(dir, 'README'), 'not ours');
  for (const name of [named.sha256, unnamedOld.sha256, '.tmp-0123', 'README']) age(join(dir, name), 2 * HOUR);
  const removed = await collectFiles(dir, new Set([named.sha256]), new Date(), HOUR);
  assert.is(removed, 2);
  assert.equal(readdirSync(dir).sort(), [named.sha256, unnamedNew.sha256, 'README'].sort());
  // Judged at the time given: later, the recent file is old enough too.
  assert.is(await collectFiles(dir, new Set([named.sha256]), new Date(Date.now() + 2 * HOUR), HOUR), 1);
  assert.is(await collectFiles(join(dir, 'missing'), new Set(), new Date(), HOUR), 0);
});

s.run();
