// The embedded LMDB log passes the event log contract.
import { rmSync } from 'node:fs';
import { openStore, type Store } from '../../src/store/env.js';
import { createLmdbLog, createLmdbLogReader } from '../../src/log/lmdb-log.js';
import type { EventLog, LogReader } from '../../src/log/types.js';
import { tempDir } from '../helpers/server.js';
import { runLogContract } from './contract.js';

runLogContract({
  name: 'LMDB',
  maxEntryBytes: Infinity,
  async setup() {},
  async teardown() {},
  async fresh() {
    const dataDir = tempDir('hedgerow-log-');
    // Opened on first use: the crash test's child process must be the first writer.
    let store: Store | null = null;
    const current = () => (store ??= openStore(dataDir));
    const opened: Array<EventLog | LogReader> = [];
    const track = <T extends EventLog | LogReader>(x: T) => { opened.push(x); return x; };
    return {
      openLog: async () => track(createLmdbLog(current())),
      openReader: async () => track(createLmdbLogReader(current())),
      writerArgs: ['lmdb', dataDir],
      // The writer's process was all there was to crash.
      async crash() {},
      async dispose() {
        for (const x of opened) await x.close();
        await store?.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
});
