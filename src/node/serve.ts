// `hedgerow serve`: the node's core (./core.ts), then the modules in the order listed
// (src/main.ts), their routes behind one HTTP server, and with a cluster this node's entry
// in the list every node announces itself in. A start that fails anywhere closes what
// already started, the core last.
import type { Config } from '../settings.js';
import { createLogger, type Logger } from '../logger.js';
import type { Store } from '../tables.js';
import type { StateWrites } from '../state/index.js';
import type { RegisteredConsumer } from '../log/consumers/index.js';
import { LMDB_LOG_ID } from '../log/types.js';
import type { Route } from '../http/types.js';
import { assertNativeUws } from '../http/native.js';
import { createHttpServer } from '../http/server.js';
import { createRouter } from '../http/router.js';
import { announceNode } from '../ops/announce.js';
import { consumersOf, startModules, writeCommandsOf, type NodeContext, type NodeModule, type Readiness, type Running } from '../modules/index.js';
import { accessModule } from '../access/module.js';
import { appModule } from '../app/module.js';
import { uuidRecorded } from '../events/index.js';
import type { TenancyStore } from '../access/index.js';
import { collectWhenIdle } from '../memory/index.js';
import { openCore } from './core.js';

export interface ServeOptions {
  log?: Logger;
  // Where the first start's banner goes (default stderr).
  out?: NodeJS.WritableStream;
  // The log consumers to run instead of the modules' (a test's), and more beside them.
  consumers?: readonly RegisteredConsumer[];
  moreConsumers?: readonly RegisteredConsumer[];
}

export interface RunningServer {
  port: number;
  // The web app's own listener (HEDGEROW_APP_PORT a number), else null.
  appPort: number | null;
  store: Store;
  // The management write path the service writes through.
  writes: StateWrites;
  tenancy: TenancyStore;
  // Every registered route, so tests can audit the whole table.
  routes: readonly Route[];
  close(): Promise<void>;
}

export async function startServer(config: Readonly<Config>, modules: readonly NodeModule[], opts: ServeOptions = {}): Promise<RunningServer> {
  assertNativeUws();
  // This thread's part; consumer threads and pool workers start their own.
  collectWhenIdle();
  const log = opts.log ?? createLogger(config.logLevel);
  const [specs, declared] = await Promise.all([writeCommandsOf<Store>(modules), opts.consumers ?? consumersOf(modules, config, 'serve')]);
  const core = await openCore({ config, log, specs, consumers: [...declared, ...(opts.moreConsumers ?? [])] });
  // Until every module has started, the node is not ready.
  let running: Running | null = null;
  // Set the moment a stop begins: a balancer sends no more work to a node that is leaving.
  let stopping = false;
  const readiness = (): Readiness => {
    if (!running) return { ok: false, checks: { started: false } };
    if (stopping) return { ok: false, checks: { stopping: false }, reasons: { stopping: 'the node is stopping' } };
    const own = core.readiness();
    const modules = running.readiness();
    const checks = { ...own.checks, ...modules.checks };
    const reasons = { ...own.reasons, ...modules.reasons };
    const ok = Object.values(checks).every(Boolean);
    return Object.keys(reasons).length > 0 ? { ok, checks, reasons } : { ok, checks };
  };
  const ctx: NodeContext<Store> = {
    config, log, out: opts.out ?? process.stderr, cluster: core.cluster, store: core.store, writes: core.writes, control: core.control, eventLog: core.eventLog,
    recorded: (projectId, uuid) => uuidRecorded(core.store, projectId, uuid), scans: core.scans, consumers: core.consumers, metrics: core.metrics, readiness,
  };
  try {
    running = await startModules(modules, ctx, (name, ms) => log.debug('closed', { module: name, ms }));
  } catch (err) {
    await core.close();
    throw err;
  }
  const started = running;
  core.consumers.start();
  // The web app's pages: on PORT, or on a listener of their own that serves the API too
  // (the app calls it on its own origin); none when it is off or not in the list.
  const pages = modules.includes(appModule) ? started.use(appModule).pages : [];
  const apart = /^\d+$/.test(config.app.port);
  const router = createRouter(apart ? started.routes : [...started.routes, ...pages]);
  const server = createHttpServer({ router, log, observe: core.metrics.observeRequest });
  const appServer = apart ? createHttpServer({ router: createRouter([...started.routes, ...pages]), log, observe: core.metrics.observeRequest }) : null;
  // This node's entry in the cluster's list (`hedgerow status`, src/ops/announce.ts).
  let announcement: { close(): Promise<void> } | null = null;
  let closing: Promise<void> | null = null;
  const close = () => (closing ??= (async () => {
    stopping = true;
    core.consumers.stopAll();
    await announcement?.close();
    server.close();
    appServer?.close();
    try {
      await started.close();
    } finally {
      await core.close();
    }
  })());
  let port: number;
  let appPort: number | null = null;
  try {
    port = await server.listen(config.host, config.port);
    if (appServer) appPort = await appServer.listen(config.host, Number(config.app.port));
    announcement = await announceNode(core.cluster, {
      name: core.cluster.node, role: 'serve', listen: `${config.host}:${port}`,
      state: () => ({
        consumers: core.consumers.positions(), ready: readiness().ok,
        control: core.control ? { applied: core.control.applied(), lag: core.control.lag() } : null,
        claims: core.consumers.held(),
      }),
      onError: (err) => log.warn('announcing this node', { error: err.message }),
    });
  } catch (err) {
    await close();
    throw err;
  }
  log.info('listening', { port, ...(appPort !== null ? { app_port: appPort } : {}), data_dir: config.dataDir, log: core.eventLog.id === LMDB_LOG_ID ? 'lmdb' : 'nats', insights: config.insights.mode });
  return { port, appPort, store: core.store, writes: core.writes, tenancy: started.use(accessModule).tenancy, routes: router.routes, close };
}
