// The aggregation worker: a consumer of the event log (src/log/consumers/) that follows the
// event store and loads each batch, with the persons the event store resolved, into the
// columnar store it owns; it also answers the service's queries on that store
// (./query-server.ts). Its position is kept twice: in DuckDB with the rows it covers (so a
// batch is loaded exactly once), then in LMDB for the mechanism and log retention.
// When the log no longer holds what it has not loaded (a data dir from before insights),
// it loads the event store's rows instead.
import { ConsumerStopped, defineConsumer, runsOf, type ConsumerHandler, type LogGap } from '../log/consumers/index.js';
import { insightsConsumerDeclaration, type InsightsSettings } from './consumer-declaration.js';
import type { EventsTables } from '../events/tables.js';
import type { PersonsTables } from '../persons/index.js';
import { createHogQLParsePool } from '../hogql/index.js';
import { openColumnar } from './columnar/database.js';
import { createLoader } from './columnar/loader.js';
import { BatchBuilder, LoadedPersons } from './from-store.js';
import { serveQueries } from './query-server.js';
import { serveQueriesOverNats } from './nats-query-server.js';



const BACKFILL_BATCH = 50_000;
// Log bytes per batch (./from-store.ts stages each event's line from its row's bytes, so
// the decoded log frames and the staging bytes are what a batch holds). 16 MiB batches (the
// node's default) grew this thread's heap to ~500 MB during a 1,000,000-event load, when a
// batch held each event decoded three times; 4 MiB then kept the process's anonymous memory
// at ~1.3 GB against ~1.5 GB. Since staging from the row's bytes, 8 MiB batches peak at the
// same ~1.2 GB as 4 MiB did (bench/RESULTS.md, "Insights loads of 4 MiB").
const BATCH_BYTES = 8 * 1024 * 1024;
// Log bytes per load within a batch: a stop waits for one load, not the batch's. Each load
// is a DuckDB transaction with a fixed cost (~25 ms of statements and commit on an idle
// core, whatever its size: the positions row, the distinct-id staging tables, the commit's
// WAL write), which at 1 MiB (~4,000 small events) was a sixth of a backlog's time; a 4 MiB
// load takes ~0.2 s of a backlog's, and a stop waits for that.
const RUN_BYTES = 4 * 1024 * 1024;

export const insightsConsumer = defineConsumer<InsightsSettings, EventsTables & PersonsTables>({
  ...insightsConsumerDeclaration,
  batchBytes: BATCH_BYTES,
  async open(ctx): Promise<ConsumerHandler> {
    const { store, settings, position } = ctx;
    const db = await openColumnar({ dir: settings.dataDir, threads: settings.threads, memoryLimit: settings.memoryLimit });
    const loader = createLoader(db);
    // What the store has loaded, kept here so a query waiting for a position reads no database.
    let loadedSeq = await loader.position(position.key);
    // EventsQuery's HogQL is parsed in a thread of its own, stopped if a parse runs too long.
    const hogql = createHogQLParsePool();
    if (settings.warmHogQL) hogql.warm();
    let server;
    try {
      const jetstream = ctx.cluster?.jetstream;
      if (settings.replica !== undefined && !jetstream) throw new Error('an aggregation replica answers over NATS: its thread has no NATS connection');
      server = settings.replica !== undefined
        ? await serveQueriesOverNats(db, jetstream!, { replica: settings.replica, position: () => loadedSeq, hogql })
        : serveQueries(db, settings.dataDir, () => loader.position(position.key), hogql);
    } catch (err) {
      await hogql.close();
      await db.close();
      throw err;
    }
    const loaded = new LoadedPersons();

    return {
      async apply(groups, through) {
        // A load at a time, each with the position it reaches; a stop leaves the batch
        // between loads. What DuckDB has (a crash came between its commit and LMDB's, or
        // a run loaded before a failure) is skipped: only the LMDB position was behind.
        const runs = runsOf(groups, through, RUN_BYTES, await loader.position(position.key));
        for (let i = 0; i < runs.length; i++) {
          if (i > 0 && ctx.stopping.aborted) throw new ConsumerStopped();
          const run = runs[i];
          const builder = new BatchBuilder(store, loaded);
          builder.addGroups(run.groups);
          await loader.load({ ...builder.take(), position: run.through === null ? undefined : { name: position.key, seq: run.through } });
          loaded.commit(builder.fingerprints, builder.wholes);
          if (run.through !== null) {
            loadedSeq = Math.max(loadedSeq, run.through);
            await position.commit(run.through);
          }
        }
        if (runs.length === 0 && through !== null) await position.commit(through);
      },
      async backfill(gap: LogGap) {
        let builder = new BatchBuilder(store);
        for (const { key, value } of store.eventRows.getRange({})) {
          if (!value) continue;
          builder.addStored(key[0], value);
          if (builder.size >= BACKFILL_BATCH) {
            await loader.load(builder.take());
            builder = new BatchBuilder(store);
          }
        }
        const resume = gap.firstHeld - 1;
        await loader.load({ ...builder.take(), position: { name: position.key, seq: resume } });
        loadedSeq = Math.max(loadedSeq, resume);
        return resume;
      },
      async close() {
        await server.close();
        await hogql.close();
        await db.close();
      },
    };
  },
});
