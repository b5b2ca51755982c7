// Transformations in ingestion, the event store's step before storing (src/events/pre-store.ts,
// wired in src/main.ts through ../ingestion.ts): the event store asks this, before it stores
// a batch, what the enabled `transformation` functions of the batch's projects make of its
// events, in execution order (then oldest first), each on what the one before it left
// (PostHog's hog transformer, before person processing). Every other consumer
// reads the events as the event store keeps them (insights its rows; destinations each
// event's row when its project has transformations), so each sees the transformed event, or
// none when one was dropped, and a transformation runs once per event and node.
// A group whose projects (its record's frame headers) have none is passed over undecoded:
// a project without transformations costs a map lookup per batch. Programs run in a Hog
// worker of this thread's own (started on the first transformation), one task per function
// and chunk of events; a worker that fails under a task (out of memory, past its deadline)
// fails that function on those events alone, which pass through it unchanged. The watcher
// disables one that keeps failing or running long (./transform-watcher.ts). The functions'
// logs, metrics and watcher records are written to the destinations store once the batch is
// stored; with NATS every node runs the same transformations on the same events and keeps
// its own.
import { PoolOverloadedError } from '../../pools/index.js';
import type { CapturedEvent } from '../../log/types.js';
import type { OpenPreStoreStep, PreStoreStep, Replacement } from '../../events/index.js';
import { createTenancyStore, type AccessTables } from '../../access/index.js';
import type { DestinationsTables } from '../tables.js';
import { openDestinationsStore, type DestinationsStore } from './env.js';
import { createFunctionCache, type ActiveFunction } from './function-cache.js';
import { createHogPools, type HogPools } from './hog-pools.js';
import { HOG_PREPARE_DEADLINE_MS, HOG_WORKER_HEAP_MB } from './hog-worker-limits.js';
import { projectUrl } from './globals.js';
import { instanceIdOf } from './queue.js';
import { createTelemetry, type Telemetry } from './telemetry.js';
import { applyOutcome, recordVerdicts, startVerdicts, type Verdicts } from './transform-result.js';
import { outcomeCost, watchBatch, type BatchWatcher } from './transform-watcher.js';
import { WATCHER_DEFAULTS, type WatcherSettings } from './watcher.js';
import type { TransformInput, TransformOutcome, TransformTask } from './transform-run.js';

const HOG_WORKER = new URL('../../../workers/hog-exec.js', import.meta.url);
// Events per task: a program may take up to its 550 ms backstop on each, within the worker's deadline.
const CHUNK = 64;
const DISABLED_MESSAGE = 'Function disabled by the watcher: it kept failing or running too long (its rating fell below 0). ' +
  'Events pass it by until it is updated with enabled: true.';

// The step's settings, plain data from the node's (../ingestion.ts).
export interface TransformerSettings {
  dataDir: string;
  siteUrl: string;
  // The GeoIP database geoipLookup reads (null: none, and geoipLookup finds nothing).
  geoipDb: string | null;
  // How long a watcher state holds before it changes on its own (HEDGEROW_HOG_WATCHER_LOCK_SECONDS).
  watcherLockMs: number;
}

export interface TransformerOptions extends Omit<TransformerSettings, 'geoipDb' | 'watcherLockMs'> {
  // The main store as the consumer's thread opened it (every domain's tables).
  store: DestinationsTables & AccessTables;
  geoipDb?: string | null;
  watcherLockMs?: number;
  now: () => number;
  // Hog workers to start (tests and benches give their own pool).
  pool?: Pick<HogPools, 'run' | 'close'>;
}

// An event going through its project's transformations.
interface Item {
  group: number;
  index: number;
  source: CapturedEvent;
  ev: TransformInput;
  verdicts: Verdicts;
  dropped: boolean;
}

// The event store's thread opens the step through this (src/events/pre-store.ts).
export const openPreStoreStep: OpenPreStoreStep = (store, settings, now) => openTransformer({
  ...(settings as TransformerSettings), store: store as DestinationsTables & AccessTables, now,
});

export function openTransformer(opts: TransformerOptions): PreStoreStep {
  const functions = createFunctionCache(opts.store, 'transformation');
  let pool = opts.pool ?? null;
  let ds: DestinationsStore | null = null;
  let tenancy: ReturnType<typeof createTenancyStore> | null = null;
  let closing = false;
  const hasAny = (project: number) => functions.active(project).length > 0;
  const watcher: WatcherSettings = { ...WATCHER_DEFAULTS, stateLockMs: opts.watcherLockMs ?? WATCHER_DEFAULTS.stateLockMs };
  const destinationsStore = () => (ds ??= openDestinationsStore(opts.dataDir));

  function hogPool(): Pick<HogPools, 'run' | 'close'> {
    pool ??= createHogPools({ worker: HOG_WORKER, threads: 1, heapMb: HOG_WORKER_HEAP_MB, deadlines: { transform: HOG_PREPARE_DEADLINE_MS } });
    return pool;
  }

  function project(id: number): TransformTask['project'] {
    tenancy ??= createTenancyStore(opts.store, {
      submit: () => Promise.reject(new Error('the transformer writes no management state')), onApplied: () => undefined,
    });
    return { id, name: tenancy.project(id)?.name ?? '', url: projectUrl(opts.siteUrl, id) };
  }

  // One function on these events; a worker failing under the task fails the function on each
  // event alone, found by halves.
  async function run(fn: ActiveFunction, task: Omit<TransformTask, 'fn'>): Promise<TransformOutcome[]> {
    try {
      return await hogPool().run('transform', { ...task, fn: fn.run });
    } catch (err) {
      if (err instanceof PoolOverloadedError || closing) throw err;
      if (task.events.length === 1) {
        const message = `Error executing function on event ${task.events[0].uuid}: HogWorkerError: ${err instanceof Error ? err.message : String(err)}`;
        return [{ kind: 'failed', message, logs: [] }];
      }
      const half = Math.ceil(task.events.length / 2);
      return [
        ...await run(fn, { ...task, events: task.events.slice(0, half) }),
        ...await run(fn, { ...task, events: task.events.slice(half) }),
      ];
    }
  }

  async function transformProject(projectId: number, items: Item[], telemetry: Telemetry, watched: BatchWatcher): Promise<void> {
    const info = project(projectId);
    for (const fn of functions.active(projectId)) {
      const id = fn.stored.id;
      const label = `${fn.stored.name} (${id})`;
      const going = items.filter((it) => !it.dropped);
      for (let start = 0; start < going.length; start += CHUNK) {
        const chunk = going.slice(start, start + CHUNK);
        if (watched.disabled(fn)) {
          telemetry.count(id, 'disabled_permanently', chunk.length);
          for (const it of chunk) it.verdicts.skipped.push(label);
          continue;
        }
        const outcomes = await run(fn, { project: info, events: chunk.map((it) => it.ev), geoipDb: opts.geoipDb ?? null });
        let cost = 0;
        for (const [i, outcome] of outcomes.entries()) {
          const it = chunk[i];
          const instance = instanceIdOf([id, it.ev.uuid, -1]);
          if (outcome.kind !== 'filtered') {
            for (const line of outcome.logs) telemetry.log(id, instance, line.level, line.message);
            if (outcome.kind !== 'returned') {
              telemetry.count(id, outcome.kind);
              telemetry.log(id, instance, 'ERROR', outcome.message);
            }
          } else {
            telemetry.count(id, 'filtered');
          }
          const applied = applyOutcome(it.ev, outcome);
          cost += outcomeCost(outcome, outcome.kind === 'failed' || applied.verdict === 'failed');
          if (applied.reason !== null) {
            telemetry.count(id, 'failed');
            telemetry.log(id, instance, 'ERROR', applied.reason);
          } else if (outcome.kind === 'returned') {
            telemetry.count(id, 'succeeded');
          }
          if (applied.verdict === 'dropped') {
            telemetry.count(id, 'dropped');
            it.dropped = true;
          } else {
            it.verdicts[applied.verdict].push(label);
          }
        }
        if (watched.charge(fn, cost)) {
          telemetry.log(id, instanceIdOf([id, chunk[chunk.length - 1].ev.uuid, -1]), 'ERROR', DISABLED_MESSAGE);
        }
      }
    }
  }

  return {
    async transform(groups) {
      let byProject: Map<number, Item[]> | null = null;
      for (const [g, group] of groups.entries()) {
        const projects = group.projects?.() ?? null;
        if (projects !== null && !projects.some(hasAny)) continue;
        // Decoded once more here (the event store reads its record again to store it).
        const events = group.events;
        for (const [index, source] of events.entries()) {
          if (!hasAny(source.project_id)) continue;
          byProject ??= new Map();
          let list = byProject.get(source.project_id);
          if (list === undefined) byProject.set(source.project_id, (list = []));
          const ev: TransformInput = {
            uuid: source.uuid, event: source.event, distinct_id: source.distinct_id, properties: source.properties, timestamp: source.timestamp,
          };
          list.push({ group: g, index, source, ev, verdicts: startVerdicts(ev), dropped: false });
        }
      }
      if (byProject === null) return null;
      const telemetry = createTelemetry(opts.now);
      const watched = watchBatch(destinationsStore, watcher, opts.now);
      for (const [projectId, items] of byProject) await transformProject(projectId, items, telemetry, watched);
      const out: (Replacement[] | null)[] = groups.map(() => null);
      for (const items of byProject.values()) {
        for (const it of items) {
          const replaced = (out[it.group] ??= []);
          if (it.dropped) {
            replaced[it.index] = null;
            continue;
          }
          recordVerdicts(it.ev, it.verdicts);
          replaced[it.index] = { ...it.source, event: it.ev.event, distinct_id: it.ev.distinct_id, properties: it.ev.properties as CapturedEvent['properties'] };
        }
      }
      return {
        groups: out,
        async committed() {
          if (telemetry.empty() && watched.empty()) return;
          const store = destinationsStore();
          await store.root.transaction(() => {
            telemetry.write(store);
            watched.write(store);
          });
        },
      };
    },
    async close() {
      closing = true;
      await pool?.close();
      await ds?.close();
    },
  };
}
