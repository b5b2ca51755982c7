// Which event log a process uses is the cluster's to say: the JetStream stream when the
// cluster handle has one (NATS), else the LMDB log in the data dir (embedded). One place, so
// neither main.ts nor a consumer thread asks whether NATS is configured.
import type { Cluster } from '../cluster/index.js';
import type { LogTables } from './tables.js';
import { createLmdbLog, createLmdbLogReader, READ_BYTE_BUDGET } from './lmdb-log.js';
import { createNatsLog, createNatsLogReader } from './nats-log.js';
import type { EventLog, LogCodec, LogReader } from './types.js';

export function openEventLog(cluster: Cluster, store: LogTables, codec: LogCodec): Promise<EventLog> {
  return cluster.jetstream ? createNatsLog(cluster.jetstream, codec) : Promise.resolve(createLmdbLog(store, codec));
}

// `batchBytes`: the most log bytes handed to a consumer at once (embedded log).
export function openLogReader(cluster: Cluster, store: LogTables, codec: LogCodec, batchBytes = READ_BYTE_BUDGET): Promise<LogReader> {
  return cluster.jetstream ? createNatsLogReader(cluster.jetstream, codec, cluster.timings.stallMs) : Promise.resolve(createLmdbLogReader(store, codec, batchBytes));
}
