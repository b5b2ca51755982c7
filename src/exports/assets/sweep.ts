// Expiry: assets past their expires_after are deleted (one command with the sweeping node's
// time), then the files no remaining asset names. Reads answer 404 for an expired asset from
// the moment it expires (../api/routes.ts); the sweep reclaims the space. It runs every
// sweepIntervalMs and once at start-up; `now` is injectable for tests.
import type { Logger } from '../../logger.js';
import type { StateWrites } from '../../state/index.js';
import type { ExportsTables } from '../tables.js';
import { allAssets, isExpired } from './asset-store.js';
import { expireExportsCommand } from './commands.js';
import { collectFiles } from './files.js';
import type { SharedFiles } from './shared.js';

// A file younger than this is kept even when no asset names it yet: its render is about to
// record it (the worker writes the file, then the outcome is committed).
export const FILE_GRACE_MS = 3_600_000;

export interface SweepOptions {
  store: ExportsTables;
  writes: StateWrites;
  dir: string;
  // With NATS: the object store every node reads files from; its unnamed objects are
  // deleted by every node's sweep (idempotent).
  shared?: SharedFiles;
}

export interface SweepResult {
  expired: number;
  files: number;
}

export async function sweepExports(opts: SweepOptions, now: Date): Promise<SweepResult> {
  const expired = allAssets(opts.store).some((a) => isExpired(a, now))
    ? await opts.writes.submit(expireExportsCommand, { now: now.toISOString() })
    : 0;
  const keep = new Set<string>();
  for (const asset of allAssets(opts.store)) if (asset.content) keep.add(asset.content.sha256);
  const files = await collectFiles(opts.dir, keep, now, FILE_GRACE_MS);
  const shared = opts.shared ? await opts.shared.collect(keep, now, FILE_GRACE_MS) : 0;
  return { expired, files: files + shared };
}

export interface Sweeper {
  stop(): Promise<void>;
}

export function startSweeper(opts: SweepOptions, intervalMs: number, now: () => Date, log: Logger): Sweeper {
  let current: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const sweep = () => {
    current = sweepExports(opts, now()).then(
      (r) => { if (r.expired || r.files) log.info('expired exports deleted', { assets: r.expired, files: r.files }); },
      (err: unknown) => log.error('the exports sweep failed', { error: err instanceof Error ? err.message : String(err) }),
    ).finally(() => {
      if (timer !== null) timer = setTimeout(sweep, intervalMs).unref();
    });
  };
  timer = setTimeout(sweep, 0).unref();
  return {
    async stop() {
      if (timer) clearTimeout(timer);
      timer = null;
      await current;
    },
  };
}
