// When pending renders are resumed (./jobs.ts resumePending, one code path for both):
// - at start, every pending asset: a previous run of this node left it (it stopped or
//   crashed while rendering), or, in a cluster, a node that died did;
// - with NATS, also every half claim TTL, those created at least one claim TTL ago: a node
//   that dies while rendering lets its claims lapse one TTL after their last renewal, and a
//   live node takes the render over within about 1.5 TTL of the death, without waiting for
//   a start. Embedded there is no periodic resume: the one node renders whatever it has in
//   hand, so a pending asset without a render exists only after a restart, which resumes it.
// Cheap while nothing is pending: a scan reads every asset, so it runs only while the last
// one found some pending, or since an asset was inserted (on any node).
import type { Logger } from '../../logger.js';
import type { StateWrites } from '../../state/index.js';
import { insertExportCommand } from './commands.js';
import type { RenderJobs } from './jobs.js';

export interface ResumerOptions {
  jobs: RenderJobs;
  writes: StateWrites;
  // With NATS: the render claims' TTL; null embedded (resume at start only).
  claimTtlMs: number | null;
  log: Logger;
}

export interface Resumer {
  stop(): Promise<void>;
}

export function startResumer(opts: ResumerOptions): Resumer {
  let maybePending = true;
  opts.writes.onApplied((kind) => { if (kind === insertExportCommand.kind) maybePending = true; });
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;

  const resume = (minAgeMs: number): Promise<void> => {
    // Cleared before the scan: an asset inserted while it runs sets it again.
    maybePending = false;
    return opts.jobs.resumePending(minAgeMs).then(
      ({ resumed, waiting }) => {
        if (waiting > 0) maybePending = true;
        if (resumed > 0) opts.log.info('interrupted exports resumed', { exports: resumed });
      },
      (err: unknown) => {
        maybePending = true;
        opts.log.error('interrupted exports could not be resumed', { error: err instanceof Error ? err.message : String(err) });
      },
    );
  };

  const ttl = opts.claimTtlMs;
  const schedule = () => {
    if (stopped || ttl === null) return;
    timer = setTimeout(() => {
      current = (maybePending ? resume(ttl) : Promise.resolve()).finally(schedule);
    }, ttl / 2);
    timer.unref();
  };
  let current: Promise<void> = resume(0).finally(schedule);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
