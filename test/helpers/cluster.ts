// Real `hedgerow serve` nodes on one real nats-server, for a uvu suite: `init` on the
// first data dir bootstraps the cluster, the others join it with empty data dirs.
import { rmSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { connect } from 'nats';
import { cliInit, cliServe, cliStop, type CliKeys } from './cli-server.js';
import { ASSETS } from './cluster-handle.js';
import { natsServerForSuite } from './nats.js';
import { bearer, positionOn, request } from './http.js';
import { eventually } from './wait.js';
import { STREAM } from '../../src/log/nats-stream.js';
import { EVENT_STORE_CONSUMER } from '../../src/events/consumer.js';
import { tempDir } from './temp-dir.js';

export interface ClusterNode { dir: string; child: ChildProcess; url: string }

// What clusterForSuite returns: a suite sharing its cluster with other suites is handed this.
export type SuiteCluster = ReturnType<typeof clusterForSuite>;

// Nodes start slowly on a loaded two-core machine, several at once.
const START_MS = 60_000;

export function clusterForSuite(opts: { nodes: number; prefix: string; env: (natsUrl: string) => NodeJS.ProcessEnv }) {
  const nats = natsServerForSuite();
  // Tests may replace a node they restarted; stop() stops whatever stands here then.
  const nodes: ClusterNode[] = [];
  let keys: CliKeys = { project_id: 0, project_api_key: '', personal_api_key: '' };
  let failure = '';
  const env = () => opts.env(nats.server().url);
  const serve = async (dir: string): Promise<ClusterNode> => ({ dir, ...(await cliServe(dir, env(), START_MS)) });

  return {
    nats,
    env,
    keys: () => keys,
    nodes,
    // Starts (or, after a kill, starts again) `serve` on a node's data dir.
    serve,
    node(i: number): ClusterNode {
      if (nodes.length < opts.nodes) throw new Error(`cluster did not start: ${failure}`);
      return nodes[i];
    },
    async start(): Promise<void> {
      await nats.start();
      try {
        const dirs = Array.from({ length: opts.nodes }, (_, i) => tempDir(`${opts.prefix}-${String.fromCharCode(97 + i)}-`));
        keys = cliInit(dirs[0], env());
        nodes.push(...await Promise.all(dirs.map(serve)));
      } catch (err) {
        // uvu swallows a failing hook: node() makes each test say why instead.
        failure = String(err);
      }
    },
    async stop(): Promise<void> {
      for (const n of nodes) await cliStop(n.child, 'SIGTERM');
      for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
      await nats.close();
    },
  };
}

// The event stream's last sequence, asked of JetStream.
export async function eventStreamEnd(natsUrl: string): Promise<number> {
  const nc = await connect({ servers: natsUrl });
  try {
    return (await (await nc.jetstreamManager()).streams.info(STREAM)).state.last_seq;
  } finally {
    await nc.close();
  }
}

// The destinations consumer's name (src/destinations DESTINATIONS_CONSUMER, whose module
// would load the Hog runtime into the test).
const DESTINATIONS_CONSUMER = 'destinations';

// Resolves once every node's event store, and the destinations consumer on the node holding
// its claim, have applied the event stream as it ends now: what was captured anywhere has
// built its persons on every node and been evaluated for hog functions (the barrier before
// asserting what did or did not happen).
export async function clusterApplied(natsUrl: string, nodes: readonly ClusterNode[]): Promise<void> {
  const end = await eventStreamEnd(natsUrl);
  for (const n of nodes) await eventually(async () => (await positionOn(n.url, EVENT_STORE_CONSUMER)) >= end, 30_000);
  const holder = await eventually(async () => { const pid = await holderPid(natsUrl); return nodes.find((n) => n.child.pid === pid); }, 30_000);
  await eventually(async () => (await positionOn(holder.url, DESTINATIONS_CONSUMER)) >= end, 30_000);
}

// The pid of the node holding the destinations claim (its entry is {"node": "<host>:<pid>:<id>"}).
export async function holderPid(natsUrl: string): Promise<number | null> {
  const nc = await connect({ servers: natsUrl });
  try {
    const kv = await nc.jetstream().views.kv(ASSETS.kv.claims.name);
    const entry = await kv.get(DESTINATIONS_CONSUMER);
    if (!entry || entry.operation !== 'PUT') return null;
    return Number((JSON.parse(new TextDecoder().decode(entry.value)) as { node: string }).node.split(':')[1]);
  } finally {
    await nc.close();
  }
}

export interface ListedPerson { uuid: string; id: unknown; distinct_ids: string[]; properties: unknown; created_at: string }

// A node's persons as the persons API lists them, in a form two nodes' lists compare by
// (distinct ids and persons sorted); null while the API does not answer 200.
export async function personsOf(n: ClusterNode, keys: CliKeys): Promise<ListedPerson[] | null> {
  const r = await request(`${n.url}/api/environments/${keys.project_id}/persons/?limit=1000`, { headers: bearer(keys.personal_api_key) });
  if (r.status !== 200) return null;
  return (r.body.results as ListedPerson[])
    .map((p) => ({ uuid: p.uuid, id: p.id, distinct_ids: [...p.distinct_ids].sort(), properties: p.properties, created_at: p.created_at }))
    .sort((x, y) => x.uuid.localeCompare(y.uuid));
}

// A project of its own, made through `nodes[0]` and known to every node given, for a suite
// sharing a cluster with others: its events, persons, queries and hog functions stay apart
// from theirs. The keys of the cluster's admin, with the new project's id and token.
export async function clusterProject(nodes: readonly ClusterNode[], keys: CliKeys, name: string): Promise<CliKeys> {
  const created = await request(`${nodes[0].url}/api/projects/`, {
    method: 'POST', headers: { ...bearer(keys.personal_api_key), 'Content-Type': 'application/json' }, body: JSON.stringify({ name }),
  });
  if (created.status !== 201) throw new Error(`project ${name} not created: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.id as number;
  for (const n of nodes) {
    await eventually(async () => (await request(`${n.url}/api/projects/${id}/`, { headers: bearer(keys.personal_api_key) })).status === 200, 20_000);
  }
  return { project_id: id, project_api_key: created.body.api_token as string, personal_api_key: keys.personal_api_key };
}
