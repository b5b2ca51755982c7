// Person deletions across regional ingest nodes (issue 19, docs/decisions/0032): a person
// deleted through node B while node A captures $identify events for its ids. The deletion
// travels the event stream, so both nodes apply it between the same two events and end
// with the same persons (the control stream had each node apply it wherever its own event
// store stood). Run in three-nodes.test.ts's cluster (a cluster start is most of a cluster
// suite's CPU), on two of its nodes and a project of its own.
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CliKeys } from '../helpers/cli-server.js';
import { clusterProject, type ClusterNode as Node, personsOf as clusterPersons, type SuiteCluster } from '../helpers/cluster.js';
import { postJson, request, bearer } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { personUuid } from '../../src/persons/person-uuid.js';

// `nodes`: the indices of the cluster's nodes standing for A and B.
export function personOperations(cluster: SuiteCluster, nodes: readonly [number, number]): Test {
  const s = suite('person deletions across two nodes');
  const node = (i: number) => cluster.node(nodes[i]);
  let project: CliKeys | null = null;
  let failure = '';
  s.before(async () => {
    try {
      project = await clusterProject([node(0), node(1)], cluster.keys(), 'person deletions');
    } catch (err) {
      // uvu swallows a failing hook: keys() makes the test say why instead.
      failure = String(err);
    }
  });

  const keys = (): CliKeys => {
    if (!project) throw new Error(`no project for the suite: ${failure}`);
    return project;
  };
  const api = (n: Node, method: string, path: string) =>
    request(`${n.url}/api/environments/${keys().project_id}${path}`, { method, headers: bearer(keys().personal_api_key) });
  const capture = async (n: Node, batch: Record<string, unknown>[]) => {
    const r = await postJson(`${n.url}/batch/`, { api_key: keys().project_api_key, batch });
    assert.is(r.status, 200);
  };

  const personsOf = (n: Node) => clusterPersons(n, keys());
  const [A, B] = [0, 1];
  const identify = (i: number) => ({
    event: '$identify', distinct_id: 'victim', properties: { $anon_distinct_id: `anon-${i}`, $set: { step: i } },
    timestamp: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 1000).toISOString(),
  });

  s('a person deleted on B while A captures identifies for it ends the same on both nodes', async () => {
    const victim = personUuid(keys().project_id, 'victim');
    await capture(node(A), [identify(0), identify(1)]);
    for (const i of [A, B]) await eventually(async () => (await api(node(i), 'GET', `/persons/${victim}/`)).status === 200, 20_000);

    // A captures identifies one request at a time while B deletes the person.
    let capturing = true;
    let sent = 2;
    const captures = (async () => {
      while (capturing || sent < 12) await capture(node(A), [identify(sent++)]);
    })();
    await eventually(async () => sent >= 6, 20_000);
    const deleted = await api(node(B), 'DELETE', `/persons/${victim}/`);
    capturing = false;
    await captures;
    assert.is(deleted.status, 202);
    // These are after the deletion in the stream: captured once B's append was acknowledged.
    await capture(node(A), [identify(sent++)]);
    await capture(node(A), [{ event: 'marker', distinct_id: 'marker' }]);

    const settled = async (n: Node) => {
      const p = await personsOf(n);
      return p && p.some((x) => x.distinct_ids.includes('marker')) ? p : null;
    };
    const onA = await eventually(() => settled(node(A)), 20_000);
    const onB = await eventually(() => settled(node(B)), 20_000);
    assert.equal(onB, onA);
    // The deletion took effect between two identifies: the person made after it holds only
    // later anon ids, and the ids before it belong to no one.
    const after = onA.find((p) => p.uuid === victim);
    assert.ok(after, 'identifies after the deletion make the person again');
    assert.ok(!after.distinct_ids.includes('anon-0'));
    assert.ok(after.distinct_ids.includes(`anon-${sent - 1}`));
    for (const i of [A, B]) {
      const r = await api(node(i), 'GET', '/persons/?distinct_id=anon-0');
      assert.equal(r.body.results, [], `node ${i}`);
    }
    process.stderr.write(`  deleted on B after ${sent} identifies were sent to A; ${after.distinct_ids.length - 1} anon ids after it, on both nodes\n`);
  });

  return s;
}
