// Exports in a NATS cluster (issue 19, work done once): two `hedgerow serve` processes on
// one real nats-server. An export rendered on node A is read from node B, which has no file
// on its disk: the bytes come from the JetStream object store A put them in before
// recording the outcome; same bytes, same headers (and B keeps a copy).
// Hog function telemetry (./destinations-telemetry.ts) runs in this cluster afterwards, on a
// project of its own (a cluster start is most of a cluster suite's CPU); it stops a node.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cliStop, type CliKeys } from '../helpers/cli-server.js';
import { clusterForSuite } from '../helpers/cluster.js';
import { bearer, request } from '../helpers/http.js';
import { eventually } from '../helpers/wait.js';
import { connect } from 'nats';
import { ASSETS } from '../helpers/cluster-handle.js';
import { destinationsTelemetry, TELEMETRY_ENV } from './destinations-telemetry.js';

const s = suite('exports across two nodes, one NATS');
// Each node answers its insights itself (no `hedgerow aggregate` in this test).
const cluster = clusterForSuite({
  nodes: 2, prefix: 'hedgerow-export',
  env: (url) => ({ NATS_URL: url, HEDGEROW_INSIGHTS: 'embedded', HEDGEROW_EXPORT_SYNC_MS: '60000', ...TELEMETRY_ENV }),
});
const { nats, serve, node, nodes } = cluster;
let keys: CliKeys;
s.before(async () => { await cluster.start(); keys = cluster.keys(); });

const [A, B] = [0, 1];
const base = () => `/api/environments/${keys.project_id}`;

function api(i: number, method: string, path: string, body?: unknown) {
  return request(`${node(i).url}${path}`, {
    method,
    headers: { ...bearer(keys.personal_api_key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function content(i: number, id: number): Promise<{ status: number; bytes: Buffer; type: string | null; disposition: string | null }> {
  const res = await fetch(`${node(i).url}${base()}/exports/${id}/content/`, { headers: bearer(keys.personal_api_key) });
  return {
    status: res.status, bytes: Buffer.from(await res.arrayBuffer()),
    type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'),
  };
}

let insight = 0;
let lastId = 0;

s('an insight saved on node A', async () => {
  const r = await api(A, 'POST', `${base()}/insights/`, {
    name: 'Pageviews', query: { kind: 'InsightVizNode', source: { kind: 'TrendsQuery', interval: 'day', dateRange: { date_from: '-6d' }, series: [{ kind: 'EventsNode', event: '$pageview' }] } },
  });
  assert.is(r.status, 201, JSON.stringify(r.body));
  insight = r.body.id;
  await eventually(async () => (await api(B, 'GET', `${base()}/insights/${insight}/`)).status === 200);
});

for (const format of ['text/csv', 'image/png'] as const) {
  s(`a ${format} export rendered on node A is read on node B: the same bytes and headers`, async () => {
    const created = await api(A, 'POST', `${base()}/exports/`, { insight, export_format: format });
    assert.is(created.status, 201, JSON.stringify(created.body));
    assert.ok(created.body.has_content, JSON.stringify(created.body));
    const id = created.body.id as number;
    lastId = id;
    const onA = await content(A, id);
    assert.is(onA.status, 200);
    assert.ok(onA.bytes.length > 0);
    // B applies A's finish command, and has no file of its own.
    const asset = await eventually(async () => {
      const r = await api(B, 'GET', `${base()}/exports/${id}/`);
      return r.status === 200 && r.body.has_content ? r.body : null;
    }, 5000);
    assert.is(asset.export_format, format);
    const { createHash } = await import('node:crypto');
    const sha = createHash('sha256').update(onA.bytes).digest('hex');
    assert.ok(existsSync(join(node(A).dir, 'exports', sha)));
    assert.not.ok(existsSync(join(node(B).dir, 'exports', sha)));
    const onB = await content(B, id);
    assert.is(onB.status, 200);
    assert.ok(onB.bytes.equals(onA.bytes), 'same bytes');
    assert.equal([onB.type, onB.disposition], [onA.type, onA.disposition]);
    assert.is(onB.type, format);
    // B keeps a copy for its next read.
    await eventually(async () => existsSync(join(node(B).dir, 'exports', sha)));
    const again = await content(B, id);
    assert.ok(again.bytes.equals(onA.bytes));
  });
}

async function restart(i: number): Promise<void> {
  await cliStop(node(i).child, 'SIGTERM');
  nodes[i] = await serve(node(i).dir);
}

s('a pending render another node has in hand is not resumed by a node restarting; once free, the restart renders it and node A reads it', async () => {
  // The next asset's render claimed from outside, as by a node rendering it.
  const nc = await connect({ servers: nats.server().url });
  try {
    const kv = await nc.jetstream().views.kv(ASSETS.kv.exportClaims.name);
    const id = lastId + 1;
    await kv.create(`${keys.project_id}.${id}`, new TextEncoder().encode('elsewhere'));
    const created = await api(A, 'POST', `${base()}/exports/`, { insight, export_format: 'text/csv' });
    assert.is(created.status, 201);
    assert.is(created.body.id, id);
    assert.is(created.body.has_content, false, 'A did not render what it could not claim');
    await restart(B);
    // B's start-up resume ran before it listened and must have left the claimed render
    // alone. Nothing observable says a wrongly started render is under way, so time
    // passing is the point here: such a render would have finished by now.
    await new Promise((r) => setTimeout(r, 2000));
    for (const i of [A, B]) {
      const r = await api(i, 'GET', `${base()}/exports/${id}/`);
      assert.equal([r.body.has_content, r.body.exception], [false, null], `node ${i}: still pending`);
    }
    // The holder lets go without an outcome (it died): B's next start resumes the render.
    await kv.delete(`${keys.project_id}.${id}`);
    await restart(B);
    // A node start away: polled every 100 ms, not 25.
    await eventually(async () => (await api(A, 'GET', `${base()}/exports/${id}/`)).body.has_content === true, 20_000, 100);
    const onA = await content(A, id);
    assert.is(onA.status, 200);
    const onB = await content(B, id);
    assert.ok(onA.bytes.equals(onB.bytes));
  } finally {
    await nc.close();
  }
});

s('an export unknown to the cluster is 404 on node B', async () => {
  assert.is((await content(B, 999_999)).status, 404);
});

const telemetry = destinationsTelemetry(cluster);
telemetry.after(cluster.stop);
s.run();
telemetry.run();
