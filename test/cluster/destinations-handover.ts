// Losing the node that delivers loses no delivery (issue 19: "losing a node loses
// nothing"). With NATS one node runs the hog function deliveries for the cluster (its
// claim, docs/decisions/0031); it queues each invocation in its own LMDB. Here the holder is
// SIGKILLed while its deliveries hang at the endpoint, after it has renewed its claim (and
// recorded its position) past those events: the surviving node takes the claim over and
// delivers every one of them. Run in three-nodes.test.ts's cluster (a cluster start is most
// of a cluster suite's CPU), on the two nodes it has left and a project of its own.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'nats';
import { cliStop, type CliKeys } from '../helpers/cli-server.js';
import { clusterProject, holderPid, type SuiteCluster } from '../helpers/cluster.js';
import { ASSETS } from '../helpers/cluster-handle.js';
import { postJson, request, bearer } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { ok, startSink, type Sink } from '../helpers/http-sink.js';
import { createHogFunction, orderWebhook } from '../helpers/hog-functions.js';

// `nodes`: the indices of the cluster's two nodes still running, one of which holds the
// destinations claim (the test kills it).
export function destinationsHandover(cluster: SuiteCluster, nodes: readonly [number, number]): Test {
  const s = suite('destinations handed over');
  let project: CliKeys | null = null;
  let failure = '';
  s.before(async () => {
    try {
      project = await clusterProject(nodes.map((i) => cluster.node(i)), cluster.keys(), 'handover');
    } catch (err) {
      // uvu swallows a failing hook: the test says why instead.
      failure = String(err);
    }
  });

  s('the holder killed with deliveries in flight: the other node delivers every one of them', async () => {
    if (!project) throw new Error(`no project for the suite: ${failure}`);
    const keys = project;
    const [a, b] = nodes.map((i) => cluster.node(i));
    const sink: Sink = await startSink();
    // The endpoint holds every request unanswered: the holder's invocations stay queued.
    sink.respond = () => undefined;
    try {
      const created = await createHogFunction(a.url, keys, orderWebhook(sink.url));
      assert.is(created.status, 201);
      await eventually(async () => (await request(`${b.url}/api/environments/${keys.project_id}/hog_functions/${created.body.id}/`, {
        headers: bearer(keys.personal_api_key),
      })).status === 200, 20_000);
      const batch = Array.from({ length: 5 }, (_, k) => ({ event: 'order', distinct_id: `buyer-${k}`, properties: { n: k + 1 } }));
      assert.is((await postJson(`${a.url}/batch/`, { api_key: keys.project_api_key, batch })).status, 200);
      // The holder runs them: every request reaches the endpoint, none is answered. (A node
      // of the cluster killed before this suite may have held the claim: then it lapses first.)
      await eventually(async () => new Set(sink.requests.map((r) => r.json().n)).size === 5, 30_000);
      const pid = await holderPid(cluster.nats.server().url);
      const holder = [a, b].find((n) => n.child.pid === pid);
      assert.ok(holder, `the claim names pid ${pid}`);
      const survivor = holder === a ? b : a;
      // Past a renewal (every third of the claim TTL): the holder has recorded a position after
      // the batch (each renewal writes the position anew: a revision after the one standing now).
      const nc = await connect({ servers: cluster.nats.server().url });
      try {
        const positions = await nc.jetstream().views.kv(ASSETS.kv.claimPositions.name);
        const standing = (await positions.get('destinations'))?.revision ?? 0;
        await eventually(async () => ((await positions.get('destinations'))?.revision ?? 0) > standing, 30_000);
      } finally {
        await nc.close();
      }
      await cliStop(holder.child, 'SIGKILL');
      sink.requests = [];
      sink.respond = ok;
      // The claim lapses one claim TTL (10 s, halved by the test profile) after its last
      // renewal; the survivor then replays from the recorded position and delivers.
      const delivered = () => new Set(sink.answered.map((r) => Number(r.json().n)));
      await eventually(async () => delivered().size === 5, 60_000)
        .catch(() => assert.equal([...delivered()].sort(), [1, 2, 3, 4, 5], `delivered by ${survivor.url}`));
      assert.equal([...delivered()].sort(), [1, 2, 3, 4, 5]);
    } finally {
      await sink.close();
    }
  });

  return s;
}
