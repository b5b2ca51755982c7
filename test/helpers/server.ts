// Starts a real hedgerow server on an ephemeral port over a fresh temporary data
// dir, with keys minted the way `hedgerow init` does, and talks HTTP to it.
import { rmSync } from 'node:fs';
import { Writable } from 'node:stream';
import { MODULES } from '../../src/main.js';
import { consumersOf } from '../../src/modules/index.js';
import { startServer, type RunningServer } from '../../src/node/serve.js';
import { positionsOf, type RegisteredConsumer } from '../../src/log/consumers/index.js';
import { newestSeq } from '../../src/log/lmdb-log.js';
import { LMDB_LOG_ID } from '../../src/log/types.js';
import type { NodeModule } from '../../src/modules/index.js';
import { createEventsModule } from '../../src/events/module.js';
import { transformationsBeforeStore } from '../../src/destinations/ingestion.js';
import { insightsModule } from '../../src/insights/module.js';
import { destinationsModule } from '../../src/destinations/module.js';
import type { Config } from '../../src/settings.js';
import { parseCommandLine } from '../../src/cli/main.js';
import { createLogger } from '../../src/logger.js';
import { bootstrap } from '../../src/access/index.js';
import { TEST_PROFILE_ENV } from './profile.js';
import { tempDir } from './temp-dir.js';
import { eventually } from './wait.js';

// Files that start servers import these from here too.
export { bearer, postJson, request } from './http.js';
export { eventually } from './wait.js';
export { tempDir } from './temp-dir.js';

export interface TestServer {
  url: string;
  projectKey: string;
  personalKey: string;
  projectId: number;
  server: RunningServer;
  dataDir: string;
  // Resolves once every log consumer of this server has applied the embedded log as it
  // stands now: what was captured before is stored, and what a consumer did with it done.
  applied(): Promise<void>;
  close(): Promise<void>;
}

// A server's config under the test profile (./profile.ts); `env` and `extra` flags win.
export function testConfig(dataDir: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}): Readonly<Config> {
  return parseCommandLine(['serve', '--port', '0', '--host', '127.0.0.1', '--data', dataDir, '--log-level', 'silent', ...extra], { ...TEST_PROFILE_ENV, ...env }, MODULES).config;
}

export interface TestServerOptions {
  extra?: string[];
  env?: NodeJS.ProcessEnv;
  dataDir?: string;
  // The modules whose log consumers the server runs (default: all of them). A suite that
  // only talks to the management API and never reads what consumers apply runs none.
  consumers?: readonly NodeModule[];
  // Log consumers run beside those.
  moreConsumers?: RegisteredConsumer[];
}

// The event store as src/main.ts wires it (with the transformations' step).
const eventsModule = createEventsModule(transformationsBeforeStore);

// A suite that never reads what the log's consumers apply (events, persons, insights,
// hog function deliveries): no consumer threads.
export const NO_CONSUMERS: readonly NodeModule[] = [];
// A suite that reads events and persons, and runs no insight or hog function (each consumer
// is a thread loading its own modules: DuckDB for insights, the Hog runtime for destinations).
export const EVENTS_ONLY: readonly NodeModule[] = [eventsModule];
// A suite about insights (or exports of them) that runs no hog function.
export const NO_DESTINATIONS: readonly NodeModule[] = [eventsModule, insightsModule];
// A suite about hog functions that queries no insight.
export const NO_INSIGHTS: readonly NodeModule[] = [eventsModule, destinationsModule];

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = opts.dataDir ?? tempDir();
  const config = testConfig(dataDir, opts.extra, opts.env);
  const consumers = [...await consumersOf(opts.consumers ?? MODULES, config, 'serve'), ...(opts.moreConsumers ?? [])];
  // The first-start banner prints keys; tests mint their own. A failed start is printed here:
  // thrown from a suite's `before`, uvu would report nothing of it.
  const server = await startServer(config, MODULES, { log: createLogger('silent'), out: discard(), consumers }).catch((err: Error) => {
    process.stderr.write(`startTestServer failed: ${err.stack ?? err.message}\n`);
    throw err;
  });
  const boot = await bootstrap(server.tenancy);
  const { key } = await server.tenancy.createPersonalKey(boot.admin.id, ['*'], null, 'test');
  return {
    url: `http://127.0.0.1:${server.port}`,
    projectKey: boot.project.api_token,
    personalKey: key,
    projectId: boot.project.id,
    server,
    dataDir,
    async applied() {
      if (config.natsUrl) throw new Error('applied() reads the embedded log; this server logs to NATS');
      const through = newestSeq(server.store);
      await eventually(async () => positionsOf(server.store, LMDB_LOG_ID, consumers).every((c) => c.position >= through));
    },
    async close() {
      await server.close();
      if (!opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// A stream that keeps nothing (the first start's banner: tests mint their own keys).
export const discard = () => new Writable({ write(_chunk, _encoding, done) { done(); } });
