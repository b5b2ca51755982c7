// Exports in a NATS cluster (issue 19, work done once): two `hedgerow serve` processes on
// one real nats-server. An export rendered on node A is read from node B, which has no file
// on its disk: the bytes come from the JetStream object store A put them in before
// recording the outcome; same bytes, same headers (and B keeps a copy).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { cliInit, cliServe, cliStop, type CliKeys } from '../helpers/cli-server.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { bearer, eventually, request, tempDir } from '../helpers/server.js';
import { connect } from 'nats';
import { EXPORT_CLAIMS_BUCKET } from '../../src/exports/assets/nats-shared.js';

const s = suite('exports across two nodes, one NATS');
const nats = natsServerForSuite();
const START_MS = 60_000;

interface Node { dir: string; child: ChildProcess; url: string }
let nodes: Node[] = [];
let keys: CliKeys;
// Each node answers its insights itself (no `hedgerow aggregate` in this test).
const env = () => ({
  NATS_URL: nats.server().url, HEDGEROW_INSIGHTS: 'embedded', HEDGEROW_EXPORT_SYNC_MS: '60000', HEDGEROW_RATE_LIMIT_PER_MINUTE: '1000000',
});

s.before(async () => {
  await nats.start();
  try {
    const dirs = [tempDir('hedgerow-export-a-'), tempDir('hedgerow-export-b-')];
    keys = cliInit(dirs[0], env());
    nodes = await Promise.all(dirs.map(async (dir) => ({ dir, ...(await cliServe(dir, env(), START_MS)) })));
  } catch (err) {
    keys = { project_id: 0, project_api_key: '', personal_api_key: String(err) };
  }
});
s.after(async () => {
  for (const n of nodes) await cliStop(n.child, 'SIGTERM');
  for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
  await nats.close();
});

const [A, B] = [0, 1];
const node = (i: number) => {
  if (nodes.length < 2) throw new Error(`cluster did not start: ${keys.personal_api_key}`);
  return nodes[i];
};
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
  await eventually(async () => (await api(B, 'GET', `${base()}/insights/${insight}/`)).status === 200, 5000);
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
    await eventually(async () => existsSync(join(node(B).dir, 'exports', sha)), 5000);
    const again = await content(B, id);
    assert.ok(again.bytes.equals(onA.bytes));
  });
}

async function restart(i: number): Promise<void> {
  await cliStop(node(i).child, 'SIGTERM');
  nodes[i] = { dir: node(i).dir, ...(await cliServe(node(i).dir, env(), START_MS)) };
}

s('a pending render another node has in hand is not resumed by a node restarting; once free, the restart renders it and node A reads it', async () => {
  // The next asset's render claimed from outside, as by a node rendering it.
  const nc = await connect({ servers: nats.server().url });
  try {
    const kv = await nc.jetstream().views.kv(EXPORT_CLAIMS_BUCKET);
    const id = lastId + 1;
    await kv.create(`${keys.project_id}.${id}`, new TextEncoder().encode('elsewhere'));
    const created = await api(A, 'POST', `${base()}/exports/`, { insight, export_format: 'text/csv' });
    assert.is(created.status, 201);
    assert.is(created.body.id, id);
    assert.is(created.body.has_content, false, 'A did not render what it could not claim');
    await restart(B);
    await new Promise((r) => setTimeout(r, 2000));
    for (const i of [A, B]) {
      const r = await api(i, 'GET', `${base()}/exports/${id}/`);
      assert.equal([r.body.has_content, r.body.exception], [false, null], `node ${i}: still pending`);
    }
    // The holder lets go without an outcome (it died): B's next start resumes the render.
    await kv.delete(`${keys.project_id}.${id}`);
    await restart(B);
    await eventually(async () => (await api(A, 'GET', `${base()}/exports/${id}/`)).body.has_content === true, 20_000);
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

s.run();
