// What a durable append costs on this disk right now: sequential puts to a scratch LMDB
// environment opened as the embedded log's is (src/store/env.ts: overlappingSync off, so a
// put resolves only once it is synced). A single-event request is acked only after such a
// commit, so with C connections the front door cannot pass about C / p50 requests/s
// whatever its CPU: bench/capture prints it beside each run, since other work on the machine
// moves it by several times from one minute to the next (bench/RESULTS.md, issue 26 item 4).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';

export interface CommitFloor { p50ms: number; p90ms: number; commits: number }

export async function measureCommitFloor(commits = 200, bytes = 300): Promise<CommitFloor> {
  const dir = mkdtempSync(join(tmpdir(), 'hedgerow-commit-'));
  const root = open({ path: join(dir, 'log.lmdb'), overlappingSync: false });
  try {
    const db = root.openDB({ name: 'log' });
    const value = Buffer.alloc(bytes, 1);
    const took: number[] = [];
    for (let i = 0; i < commits; i++) {
      const started = performance.now();
      await db.put(i, value);
      took.push(performance.now() - started);
    }
    took.sort((a, b) => a - b);
    return { p50ms: took[Math.floor(commits * 0.5)], p90ms: took[Math.floor(commits * 0.9)], commits };
  } finally {
    await root.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
