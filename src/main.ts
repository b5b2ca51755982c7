#!/usr/bin/env node
// The hedgerow CLI and the one place where the service is wired together.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseCommandLine, ConfigError, type Config } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { assertNativeUws } from './http/native.js';
import { createHttpServer } from './http/server.js';
import { createRouter } from './http/router.js';
import { openStore, DataDirError, type Store } from './store/env.js';
import { createLmdbLog } from './log/lmdb-log.js';
import { createNatsLog } from './log/nats-log.js';
import type { EventLog } from './log/types.js';
import { createTenancyStore, type TenancyStore } from './tenancy/store.js';
import { bootstrap } from './tenancy/bootstrap.js';
import { createManagementAuth } from './auth/management.js';
import { createMetrics } from './ops/metrics.js';
import { opsRoutes } from './ops/routes.js';
import { captureRoutes } from './capture/routes.js';
import { eventRoutes } from './events/routes.js';
import { eventStorePosition } from './events/consumer.js';
import { superviseConsumers } from './pipeline/consumer-worker.js';
import { ALL_SCOPES } from './auth/scopes.js';

export interface RunningServer {
  port: number;
  store: Store;
  tenancy: TenancyStore;
  close(): Promise<void>;
}

export async function startServer(config: Readonly<Config>, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  assertNativeUws();
  const store = openStore(config.dataDir);
  const tenancy = createTenancyStore(store);
  const boot = bootstrap(tenancy);
  if (boot.created) {
    const { key } = tenancy.createPersonalKey(boot.admin.id, [...ALL_SCOPES], null, 'bootstrap');
    process.stderr.write(
      '\n  hedgerow: new data directory initialised\n' +
      `  project id:        ${boot.project.id}\n` +
      `  project API key:   ${boot.project.api_token}\n` +
      `  personal API key:  ${key}   (shown once; store it now)\n\n`,
    );
  }

  const eventLog: EventLog = config.natsUrl ? await createNatsLog({ url: config.natsUrl }) : createLmdbLog(store);
  const metrics = createMetrics({
    backlog: () => Math.max(0, eventLog.lastSeq() - eventStorePosition(store)),
    logPending: () => eventLog.pending(),
  });
  const auth = createManagementAuth({ tenancy, onAuthFailure: (reason) => metrics.authFailures.inc({ reason }) });
  const consumers = superviseConsumers({ dataDir: config.dataDir, natsUrl: config.natsUrl }, log);

  const router = createRouter([
    ...opsRoutes(metrics, () => {
      const checks = { consumers: consumers.running(), log: eventLog.pending() < 1_000_000 };
      return { ok: checks.consumers && checks.log, checks };
    }),
    ...captureRoutes({ log: eventLog, tenancy, metrics, limits: config.capture, maxPendingEvents: 1_000_000 }),
    ...eventRoutes(auth, store),
  ]);
  const server = createHttpServer({
    router, log,
    observe: (route, method, status) => metrics.requests.inc({ route, method, status }),
  });
  const port = await server.listen(config.host, config.port);
  log.info('listening', { port, data_dir: config.dataDir, log: config.natsUrl ? 'nats' : 'lmdb' });

  return {
    port, store, tenancy,
    async close() {
      server.close();
      await eventLog.close();
      await consumers.stop();
      await store.close();
    },
  };
}

function initCommand(config: Config): void {
  const store = openStore(config.dataDir);
  const tenancy = createTenancyStore(store);
  const boot = bootstrap(tenancy);
  const { key } = tenancy.createPersonalKey(boot.admin.id, [...ALL_SCOPES], null, 'init');
  const out = { project_id: boot.project.id, project_api_key: boot.project.api_token, personal_api_key: key };
  process.stdout.write(config.json ? JSON.stringify(out) + '\n' :
    `project id: ${out.project_id}\nproject API key: ${out.project_api_key}\npersonal API key: ${out.personal_api_key}\n`);
}

const USAGE = `usage: hedgerow <command> [options]
  serve [--port N] [--data DIR] [--host H] [--log-level L]   run the service (env PORT, HEDGEROW_DATA, NATS_URL, LOG_LEVEL)
  init [--data DIR] --json                                   create the default project and mint a personal API key`;

export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseCommandLine(argv, process.env);
  } catch (err) {
    process.stderr.write(`hedgerow: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { command, config } = parsed;
  if (parsed.flags.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  try {
    switch (command[0]) {
      case 'serve': {
        const running = await startServer(config);
        const shutdown = () => { void running.close().then(() => process.exit(0)); };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
        return -1;
      }
      case 'init':
        initCommand(config);
        return 0;
      default:
        process.stderr.write(`hedgerow: unknown command "${command[0] ?? ''}"\n${USAGE}\n`);
        return 2;
    }
  } catch (err) {
    if (err instanceof ConfigError || err instanceof DataDirError) {
      process.stderr.write(`hedgerow: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`hedgerow: ${(err as Error).message}\n`);
    return 1;
  }
}

const invokedDirectly = process.argv[1] !== undefined &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
if (invokedDirectly) {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
}
