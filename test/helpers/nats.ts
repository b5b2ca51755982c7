// Starts a real nats-server with JetStream for a test suite: a fresh store dir, a
// free port, ready once the server says so. Never a mock (DESIGN.md), and never a
// silent skip: without the nats-server binary the suite fails with a clear message.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'nats';
import { createServer } from 'node:net';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tempDir } from './temp-dir.js';

const READY_TIMEOUT_MS = 10_000;

export interface NatsServer {
  url: string;
  port: number;
  storeDir: string;
  // Stops the server (SIGKILL when `crash`), keeping its store dir for a restart.
  stop(opts?: { crash?: boolean }): Promise<void>;
  // Starts it again on the same port and store dir.
  restart(): Promise<void>;
  // Freezes it (SIGSTOP): connections stay open but nothing answers. Resolves once every
  // thread of the server is stopped: a busy thread takes the signal only when next
  // scheduled, and could still answer meanwhile. resume() thaws it.
  pause(): Promise<void>;
  resume(): void;
  // Stops it and deletes its store dir.
  close(): Promise<void>;
}

export function assertNatsServerInstalled(): void {
  const probe = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    throw new Error('nats-server is not installed or not runnable; the NATS log tests need it ' +
      '(Debian: apt-get install nats-server, or run .ci/run which installs it)');
  }
}

export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

// `n` ports free now and distinct: each is held until all are chosen (a port closed and asked
// for again can come back, and two members of a cluster then clash on it).
export async function freePorts(n: number): Promise<number[]> {
  const held = await Promise.all(Array.from({ length: n }, () => new Promise<ReturnType<typeof createServer>>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  })));
  const ports = held.map((srv) => (srv.address() as { port: number }).port);
  await Promise.all(held.map((srv) => new Promise((resolve) => srv.close(resolve))));
  return ports;
}

// `extra`: more arguments (a cluster member's name and routes).
function launch(port: number, storeDir: string, extra: readonly string[] = []): Promise<ChildProcess> {
  const child = spawn('nats-server', ['-js', '-sd', storeDir, '-a', '127.0.0.1', '-p', String(port), ...extra],
    { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => fail(new Error(`nats-server not ready within ${READY_TIMEOUT_MS} ms:\n${output}`)), READY_TIMEOUT_MS);
    function fail(err: Error) {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    }
    child.once('error', (err) => fail(err));
    child.once('exit', (code) => fail(new Error(`nats-server exited with code ${code} before ready:\n${output}`)));
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Printed after JetStream has started and the client port is listening.
      if (output.includes('Server is ready')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        child.stderr!.removeAllListeners('data');
        child.stderr!.resume();
        resolve(child);
      }
    });
  });
}

// Every thread of `pid` in state T (stopped), per /proc; gives up after two seconds.
async function allThreadsStopped(pid: number): Promise<void> {
  const stateOf = (tid: string) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  };
  for (let i = 0; i < 400; i++) {
    try {
      if (readdirSync(`/proc/${pid}/task`).every((tid) => stateOf(tid).toUpperCase() === 'T')) return;
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

function waitExit(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

export async function startNatsServer(): Promise<NatsServer> {
  assertNatsServerInstalled();
  const storeDir = tempDir('hedgerow-nats-');
  const port = await freePort();
  return serverOf(port, storeDir, await launch(port, storeDir));
}

// A launched server's handle; `extra` is given again at each restart.
function serverOf(port: number, storeDir: string, first: ChildProcess, extra: readonly string[] = []): NatsServer {
  let child: ChildProcess | null = first;
  const server: NatsServer = {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    async stop(opts = {}) {
      if (!child) return;
      const c = child;
      child = null;
      await waitExit(c, opts.crash ? 'SIGKILL' : 'SIGTERM');
    },
    async restart() {
      await server.stop();
      child = await launch(port, storeDir, extra);
    },
    async pause() {
      if (!child) return;
      child.kill('SIGSTOP');
      await allThreadsStopped(child.pid!);
    },
    resume() { child?.kill('SIGCONT'); },
    async close() {
      server.resume();
      await server.stop({ crash: true });
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
  return server;
}

export interface NatsCluster {
  // Every member's client URL, comma-separated: NATS_URL as an operator writes it.
  url: string;
  // The members, each with its --server_name (what JetStream names a stream's leader and peers
  // by) and its monitoring address (/connz, /jsz: http://127.0.0.1:<port>).
  servers: (NatsServer & { name: string; monitorUrl: string })[];
  // Stops every member and deletes their store dirs.
  close(): Promise<void>;
}

// A cluster this long to elect its JetStream meta leader and see every peer, on a loaded machine.
const CLUSTER_READY_MS = 60_000;

// `size` nats-servers with JetStream, each its own store dir, routed to one another on
// loopback as one cluster. Resolves once JetStream can place a stream on all of them (an
// R<size> probe stream is created and deleted): before that, the meta leader is still
// being elected or a peer is not yet known, and creating a replicated asset fails.
// `noAdvertise`: the servers do not tell clients of one another (--no_advertise), so a client
// reaches only the addresses it was given (a test putting a proxy between it and them).
export async function startNatsCluster(size: number, opts: { noAdvertise?: boolean } = {}): Promise<NatsCluster> {
  assertNatsServerInstalled();
  const ports = await freePorts(3 * size);
  const members = Array.from({ length: size }, (_, i) => ({
    name: `hedgerow-n${i + 1}`, port: ports[3 * i], routePort: ports[3 * i + 1], monitorPort: ports[3 * i + 2], storeDir: tempDir('hedgerow-nats-'),
  }));
  const route = (m: { routePort: number }) => `nats://127.0.0.1:${m.routePort}`;
  const servers: NatsCluster['servers'] = [];
  const close = async () => { await Promise.all(servers.map((s) => s.close())); };
  try {
    // Launched together: each waits for its routes to come up.
    await Promise.all(members.map(async (m) => {
      const extra = ['--server_name', m.name, '--cluster_name', 'hedgerow-test', '--cluster', route(m), '-m', String(m.monitorPort),
        '--routes', members.filter((o) => o !== m).map(route).join(','), ...(opts.noAdvertise ? ['--no_advertise'] : [])];
      servers.push(Object.assign(serverOf(m.port, m.storeDir, await launch(m.port, m.storeDir, extra), extra), {
        name: m.name, monitorUrl: `http://127.0.0.1:${m.monitorPort}`,
      }));
    }));
    servers.sort((a, b) => a.name.localeCompare(b.name));
    const url = servers.map((s) => s.url).join(',');
    await placeable(url, size);
    return { url, servers, close };
  } catch (err) {
    await close();
    throw err;
  }
}

async function placeable(url: string, replicas: number): Promise<void> {
  const nc = await connect({ servers: url.split(','), maxReconnectAttempts: -1 });
  const deadline = Date.now() + CLUSTER_READY_MS;
  let last: unknown = null;
  try {
    while (Date.now() < deadline) {
      try {
        const jsm = await nc.jetstreamManager();
        await jsm.streams.add({ name: 'HEDGEROW_TEST_PROBE', subjects: ['hedgerow.test.probe'], num_replicas: replicas });
        await jsm.streams.delete('HEDGEROW_TEST_PROBE');
        return;
      } catch (err) {
        last = err;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw new Error(`JetStream cluster could not place an R${replicas} stream within ${CLUSTER_READY_MS} ms: ${String(last)}`);
  } finally {
    await nc.close();
  }
}

// A nats-server for one uvu suite. uvu swallows an error thrown by a `before` hook
// and reports nothing, so a failure to start (no nats-server binary, say) is kept and
// raised again by `server()`, which every test calls first: each fails, saying why.
export function natsServerForSuite() {
  let started: NatsServer | null = null;
  let failure: unknown = null;
  return {
    async start(): Promise<void> {
      try {
        started = await startNatsServer();
      } catch (err) {
        failure = err;
      }
    },
    server(): NatsServer {
      if (failure) throw failure;
      return started!;
    },
    async close(): Promise<void> {
      await started?.close();
    },
  };
}
