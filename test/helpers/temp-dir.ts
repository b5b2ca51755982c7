// A fresh temporary directory (a data dir, a nats-server's store); the test removes it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function tempDir(prefix = 'hedgerow-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}
