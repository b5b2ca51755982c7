// Export files under <data>/exports/, named by the SHA-256 of their bytes: a file is
// written to a temporary name, synced and renamed, so a reader (or a restart) sees a whole
// file or none. Identical renders share one file. Files no asset names are deleted by the
// sweep once they are older than a grace period, which covers a render between writing
// its file and recording it on the asset.
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, statSync, unlinkSync, utimesSync, writeSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoredContent } from '../types.js';

export const CONTENT_DIR = 'exports';
const HASH_NAME = /^[0-9a-f]{64}$/;
const TEMP_PREFIX = '.tmp-';

export function contentDir(dataDir: string): string {
  return join(dataDir, CONTENT_DIR);
}

function fileSize(path: string): number | null {
  try {
    return statSync(path).size;
  } catch {
    return null;
  }
}

// Synchronous: it runs in the export worker, off the HTTP thread.
export function writeContent(dir: string, bytes: Uint8Array): StoredContent {
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const path = join(dir, sha256);
  mkdirSync(dir, { recursive: true });
  if (fileSize(path) === bytes.length) {
    // Already stored by an identical render: only made recent, so the sweep's grace covers it.
    const now = new Date();
    utimesSync(path, now, now);
    return { sha256, size: bytes.length };
  }
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  const fd = openSync(temp, 'w');
  try {
    let at = 0;
    while (at < bytes.length) at += writeSync(fd, bytes, at);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
  return { sha256, size: bytes.length };
}

// A file written piece by piece (an export of many rows, never whole in memory): hashed as
// it is written, then renamed to its hash as writeContent's.
export function writeContentStreamed(dir: string, produce: (write: (chunk: string) => void) => void): StoredContent {
  mkdirSync(dir, { recursive: true });
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  const hash = createHash('sha256');
  let size = 0;
  const fd = openSync(temp, 'w');
  try {
    produce((chunk) => {
      const bytes = Buffer.from(chunk, 'utf8');
      hash.update(bytes);
      let at = 0;
      while (at < bytes.length) at += writeSync(fd, bytes, at);
      size += bytes.length;
    });
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    unlinkSync(temp);
    throw err;
  }
  closeSync(fd);
  const sha256 = hash.digest('hex');
  renameSync(temp, join(dir, sha256));
  return { sha256, size };
}

// A temporary file under `dir` (the sweep deletes those left behind).
export function temporaryPath(dir: string, label: string): string {
  mkdirSync(dir, { recursive: true });
  return join(dir, `${TEMP_PREFIX}${label}-${randomBytes(8).toString('hex')}`);
}

// The file's bytes, or null when it is not (or no longer) there.
export async function readContent(dir: string, content: StoredContent): Promise<Buffer | null> {
  if (!HASH_NAME.test(content.sha256)) return null;
  try {
    return await readFile(join(dir, content.sha256));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

// Keeps a copy of a file read from elsewhere (a cluster's object store), as writeContent
// does but without blocking: a temporary name, then renamed whole.
export async function cacheContent(dir: string, content: StoredContent, bytes: Uint8Array): Promise<void> {
  if (!HASH_NAME.test(content.sha256)) return;
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  try {
    const file = await open(temp, 'w');
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(temp, join(dir, content.sha256));
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

// Deletes the files (and leftover temporary files) no asset in `keep` names that are older
// than `graceMs` at `now`; returns how many.
export async function collectFiles(dir: string, keep: ReadonlySet<string>, now: Date, graceMs: number): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  let removed = 0;
  for (const name of names) {
    if (!(HASH_NAME.test(name) && !keep.has(name)) && !name.startsWith(TEMP_PREFIX)) continue;
    const path = join(dir, name);
    try {
      if ((await stat(path)).mtimeMs > now.getTime() - graceMs) continue;
      await unlink(path);
      removed++;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  return removed;
}
