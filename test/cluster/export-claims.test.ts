// Export renders claimed across a NATS cluster, and the shared files' sweep, against a
// real nats-server (src/exports/assets/shared.ts): two "nodes" are two cluster handles.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { openSharedExports, type SharedExports, type SharedFiles } from '../../src/exports/assets/shared.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { eventually } from '../helpers/wait.js';
import { natsServerForSuite } from '../helpers/nats.js';

const s = suite('export claims and files over NATS');
const nats = natsServerForSuite();
const handles = clusterHandles();
let one: SharedExports & { files: SharedFiles };
let two: SharedExports & { files: SharedFiles };

// A node's exports over its own cluster handle, its claims bucket made with a 1.5 s TTL.
async function node(name: string): Promise<SharedExports & { files: SharedFiles }> {
  const cluster = await handles.open(nats.server().url, { node: name, role: 'command', timings: { exportClaimTtlMs: 1500 } });
  const shared = await openSharedExports(cluster);
  if (!shared.files) throw new Error('no object store over NATS');
  return { ...shared, files: shared.files };
}

s.before(async () => {
  await nats.start();
  one = await node('one');
  two = await node('two');
});
s.after(async () => {
  await one?.close();
  await two?.close();
  await handles.closeAll();
  await nats.close();
});

const asset = { project_id: 1, id: 7 };

s('one node at a time holds an asset\'s render; releasing it lets the other take it', async () => {
  assert.ok(await one.claims.claim(asset));
  assert.not.ok(await two.claims.claim(asset));
  assert.not.ok(await one.claims.claim(asset), 'not twice on one node either');
  // Held past its TTL while renewed (time passing is the point: the TTL must go by).
  await new Promise((r) => setTimeout(r, 2500));
  assert.not.ok(await two.claims.claim(asset));
  one.claims.release(asset);
  const taken = await eventually(async () => two.claims.claim(asset)).catch(() => false);
  assert.ok(taken);
  assert.ok(await one.claims.claim({ project_id: 1, id: 8 }), 'another asset is free');
  two.claims.release(asset);
  one.claims.release({ project_id: 1, id: 8 });
});

s('a file put by one node is read by the other; the sweep deletes unnamed objects past the grace only', async () => {
  const bytes = new TextEncoder().encode('a,b\n1,2\n');
  const content = { sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  await one.files.put(content, bytes);
  await one.files.put(content, bytes); // Identical render: kept once.
  const read = await two.files.get(content);
  assert.ok(read && read.equals(Buffer.from(bytes)));
  assert.is(await two.files.get({ sha256: '0'.repeat(64), size: 1 }), null);
  const now = new Date();
  assert.is(await two.files.collect(new Set(), now, 60_000), 0, 'young: kept');
  assert.is(await two.files.collect(new Set([content.sha256]), new Date(now.getTime() + 120_000), 60_000), 0, 'named: kept');
  assert.is(await two.files.collect(new Set(), new Date(now.getTime() + 120_000), 60_000), 1);
  assert.is(await one.files.get(content), null);
  assert.is(await one.files.collect(new Set(), new Date(now.getTime() + 120_000), 60_000), 0, 'already gone');
});

s.run();
