// Management state has one write path (docs/decisions/0015): its databases are written
// only by command appliers, in files named commands.ts, and nothing in src/ opens a
// synchronous write of its own on the main thread. A write added beside the path fails
// here, before a second node would have missed it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const src = join(root, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : name.endsWith('.ts') ? [full] : [];
  });
}

const MANAGEMENT_WRITE = /\b(tenancy|flags|cohorts|cohortMembers|flagState|quota|hashKeyOverrides|insights|hogFunctions|hogFunctionVersions|exports)\.(put|putSync|remove|removeSync|transaction|transactionSync|ifNoExists)\(/;
const SYNC_WRITE = /\.(putSync|removeSync|transactionSync)\(/;
// The event store's row write, inside its consumer transaction: putSync is how lmdb-js
// reports whether a noOverwrite put happened (src/events/consumer.ts). The destinations'
// queue entry removed inside an outcome transaction: removeSync is how it reports whether
// the entry was there, so an invocation is counted out of its position once (queue.ts).
const SYNC_WRITE_ALLOWED = ['src/events/consumer.ts', 'src/destinations/runtime/queue.ts'];
// The person consumer moves a merged person's hash keys in its own transaction, and applies
// the log's person operations there (flag hash keys recorded, a deleted person's removed:
// docs/decisions/0032), in log order on every node.
const MANAGEMENT_WRITE_ALLOWED = ['src/persons/batch.ts', 'src/persons/operations.ts'];

const s = suite('one write path for management state');

s('management databases are written by command appliers only', () => {
  const offending: string[] = [];
  for (const file of sources(src)) {
    const path = relative(root, file);
    if (path.endsWith('/commands.ts') || MANAGEMENT_WRITE_ALLOWED.includes(path)) continue;
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => { if (MANAGEMENT_WRITE.test(line)) offending.push(`${path}:${i + 1}: ${line.trim()}`); });
  }
  assert.equal(offending, []);
});

s('no synchronous LMDB writes outside the event store\'s transaction', () => {
  const offending: string[] = [];
  for (const file of sources(src)) {
    const path = relative(root, file);
    if (SYNC_WRITE_ALLOWED.includes(path)) continue;
    readFileSync(file, 'utf8').split('\n').forEach((line, i) => { if (SYNC_WRITE.test(line)) offending.push(`${path}:${i + 1}: ${line.trim()}`); });
  }
  assert.equal(offending, []);
});

s.run();
