// Hog function logs, metrics and status the same on every node (issue 19: "whichever node a
// request reaches, it sees the same"). With NATS one node delivers for the cluster (the
// destinations claim, docs/decisions/0031) and writes what its deliveries observe to its
// own store; it publishes that, and every other node applies it (docs/decisions/0034).
// Two `hedgerow serve` nodes on one real nats-server: both answer the same logs and
// metrics for a webhook that delivered, and the same status for a function the holder's
// watcher disabled. Run in exports.test.ts's cluster (a cluster start is most of a cluster
// suite's CPU), with TELEMETRY_ENV, on a project of its own.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliStop, type CliKeys } from '../helpers/cli-server.js';
import { clusterProject, holderPid, type ClusterNode as Node, type SuiteCluster } from '../helpers/cluster.js';
import { postJson, request, bearer } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { startSink, type Sink } from '../helpers/http-sink.js';

// What the cluster's nodes run with for this suite.
export const TELEMETRY_ENV: Readonly<NodeJS.ProcessEnv> = {
  HEDGEROW_HOG_FETCH_ALLOW: '127.0.0.1', HEDGEROW_HOG_WATCHER_LOCK_SECONDS: '0',
};

// On the cluster's two nodes (the last test stops one of them).
export function destinationsTelemetry(cluster: SuiteCluster): Test {
  const s = suite('hog function telemetry on every node');
  let project: CliKeys | null = null;
  let failure = '';
  s.before(async () => {
    try {
      project = await clusterProject(cluster.nodes, cluster.keys(), 'telemetry');
    } catch (err) {
      // uvu swallows a failing hook: the tests say why instead.
      failure = String(err);
    }
  });
  const keysOf = (): CliKeys => {
    if (!project) throw new Error(`no project for the suite: ${failure}`);
    return project;
  };

  function api(node: Node, path: string, init: { method?: string; body?: unknown } = {}) {
    const keys = keysOf();
    return request(`${node.url}/api/environments/${keys.project_id}/hog_functions/${path}`, {
      method: init.method ?? 'GET',
      headers: { ...bearer(keys.personal_api_key), ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  }

  async function create(node: Node, body: Record<string, unknown>): Promise<string> {
    const created = await api(node, '', { method: 'POST', body: { enabled: true, ...body } });
    assert.is(created.status, 201, JSON.stringify(created.body));
    // Every node has the function before the events come.
    for (const n of cluster.nodes) await eventually(async () => (await api(n, `${created.body.id}/`)).status === 200, 20_000);
    return created.body.id;
  }

  async function capture(node: Node, batch: { event: string; distinct_id: string; properties?: Record<string, unknown> }[]): Promise<void> {
    assert.is((await postJson(`${node.url}/batch/`, { api_key: keysOf().project_api_key, batch })).status, 200);
  }

  // What a node answers for a function: its logs (all of them), metric totals by name, and the series by kind.
  async function seen(node: Node, id: string) {
    const logs = (await api(node, `${id}/logs/?limit=500`)).body.results;
    const totals = (await api(node, `${id}/metrics/totals/?breakdown_by=name`)).body.totals;
    const series = (await api(node, `${id}/metrics/?after=-1d&interval=hour`)).body;
    return { logs, totals, series };
  }

  // Polls until both nodes answer the same thing and `done` holds for it; then asserts equality.
  async function sameOnBoth(what: (node: Node) => Promise<unknown>, done: (answer: any) => boolean): Promise<any> {
    const [a, b] = cluster.nodes;
    let last: [unknown, unknown] = [null, null];
    await eventually(async () => {
      last = [await what(a), await what(b)];
      return done(last[0]) && JSON.stringify(last[0]) === JSON.stringify(last[1]);
    }, 20_000).catch(() => undefined);
    assert.equal(last[1], last[0], 'the second node answers what the first does');
    assert.ok(done(last[0]), JSON.stringify(last[0]));
    return last[0];
  }

  s('a webhook delivers on one node: both nodes answer the same logs and metrics', async () => {
    const sink: Sink = await startSink();
    try {
      const [a, b] = cluster.nodes;
      const id = await create(a, {
        template_id: 'template-webhook',
        inputs: { url: { value: `${sink.url}/deliver` }, body: { value: { n: '{event.properties.n}' } } },
        filters: { events: [{ id: 'order', type: 'events' }] },
      });
      await capture(a, [1, 2].map((n) => ({ event: 'order', distinct_id: `buyer-${n}`, properties: { n } })));
      await capture(b, [{ event: 'order', distinct_id: 'buyer-3', properties: { n: 3 } }]);
      await eventually(async () => new Set(sink.answered.map((r) => r.json().n)).size === 3, 30_000);
      const started = Date.now();
      const answer = await sameOnBoth((node) => seen(node, id), (x) => x.totals.succeeded === 3 && x.logs.length >= 3);
      process.stdout.write(`  (logs and metrics the same on both nodes ${Date.now() - started} ms after the third delivery was answered)\n`);
      assert.is(answer.totals.triggered, 3);
      assert.is(new Set(answer.logs.map((l: { instance_id: string }) => l.instance_id)).size, 3);
    } finally {
      await sink.close();
    }
  });

  s('a function the watcher disables on the delivering node shows the same status on both nodes, and stays disabled when the other takes over', async () => {
    const [a, b] = cluster.nodes;
    const id = await create(b, { hog: "throw Error('always')", filters: { events: [{ id: 'fail', type: 'events' }] } });
    await capture(a, Array.from({ length: 130 }, (_, i) => ({ event: 'fail', distinct_id: `f${i}` })));
    await sameOnBoth(async (node) => (await api(node, `${id}/`)).body.status.state, (state) => state === 3);
    // The holder stops (giving the claim up): the other node delivers from now on, and starts
    // from the cluster's watcher state, in which the function is disabled.
    const pid = await holderPid(cluster.nats.server().url);
    const holder = cluster.nodes.find((n) => n.child.pid === pid);
    assert.ok(holder, `the claim names pid ${pid}`);
    const survivor = holder === a ? b : a;
    const before = await sameOnBoth(async (node) => (await api(node, `${id}/metrics/totals/?breakdown_by=name`)).body.totals, (t) => t.failed > 0);
    await cliStop(holder.child, 'SIGTERM');
    await eventually(async () => (await holderPid(cluster.nats.server().url)) === survivor.child.pid, 20_000);
    await capture(survivor, Array.from({ length: 5 }, (_, i) => ({ event: 'fail', distinct_id: `late${i}` })));
    const totals = async () => (await api(survivor, `${id}/metrics/totals/?breakdown_by=name`)).body.totals;
    await eventually(async () => ((await totals()).disabled_permanently ?? 0) >= (before.disabled_permanently ?? 0) + 5, 30_000)
      .catch(async () => assert.equal(await totals(), before, 'the survivor skips the disabled function'));
    assert.is((await totals()).failed, before.failed);
    assert.is((await api(survivor, `${id}/`)).body.status.state, 3);
  });

  return s;
}
