// Work done once per cluster (src/log/consumers/claim.ts) against a real nats-server: one
// holder at a time, the position handed over, the claim taken over when its holder stops
// renewing (gone without giving it up) or gives it up.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'nats';
import { claimWork, type Claim } from '../../src/log/consumers/claim.js';
import { ASSETS, clusterHandles } from '../helpers/cluster-handle.js';
import { natsServerForSuite } from '../helpers/nats.js';

const s = suite('claimed work');
const nats = natsServerForSuite();
const handles = clusterHandles();
s.before(() => nats.start());
s.after(async () => {
  await handles.closeAll();
  await nats.close();
});
let names = 0;
const TTL_MS = 1500;

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// A node of its own (a cluster handle) contending for the claim, its claims bucket made with a 1.5 s TTL.
async function contender(name: string, node: string, position: { at: number }, events: string[]): Promise<Claim> {
  const cluster = await handles.open(nats.server().url, { node, role: 'command', timings: { claimTtlMs: TTL_MS } });
  return claimWork(cluster, {
    name, position: () => position.at,
    async onAcquire(recorded) { events.push(`${node} acquired from ${recorded}`); if (recorded !== null) position.at = recorded; },
    async onLose() { events.push(`${node} lost`); },
  });
}

s('one holder at a time; giving it up hands the recorded position to the next', async () => {
  const name = `work-${++names}`;
  const events: string[] = [];
  const pa = { at: 0 };
  const pb = { at: 0 };
  const a = await contender(name, 'a', pa, events);
  const b = await contender(name, 'b', pb, events);
  assert.equal([a.held(), b.held()], [true, false]);
  pa.at = 42;
  // Time passing is the point: most of the TTL goes by while a renews, and b still waits.
  await new Promise((r) => setTimeout(r, 1200));
  assert.equal([a.held(), b.held()], [true, false]);
  await a.close();
  // Held is true from the claim's creation; the position comes with onAcquire, just after.
  await until(() => b.held() && events.length === 3, 20_000);
  assert.equal(events, ['a acquired from null', 'a lost', 'b acquired from 42']);
  assert.is(pb.at, 42);
  await b.close();
});

s('a claim its holder stopped renewing (killed) blocks others until its TTL passes, then is taken with the recorded position', async () => {
  const name = `work-${++names}`;
  const events: string[] = [];
  // What a SIGKILLed holder leaves: its claim entry and the position it recorded, nobody renewing.
  const nc = await connect({ servers: nats.server().url });
  const js = nc.jetstream();
  const claims = await js.views.kv(ASSETS.kv.claims.name, { ttl: TTL_MS, history: 1 });
  const positions = await js.views.kv(ASSETS.kv.claimPositions.name, { history: 1 });
  await positions.put(name, new TextEncoder().encode('99'));
  await claims.create(name, new TextEncoder().encode('{"node":"dead"}'));
  const started = Date.now();
  const pb = { at: 3 };
  const b = await contender(name, 'b', pb, events);
  assert.is(b.held(), false);
  await until(() => b.held() && events.length === 1, 20_000);
  const took = Date.now() - started;
  assert.ok(took >= 1000, `taken after ${took} ms, before the TTL`);
  assert.is(pb.at, 99);
  assert.equal(events, ['b acquired from 99']);
  await b.close();
  await nc.close();
});

s.run();
