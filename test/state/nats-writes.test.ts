// The NATS write path (src/state/nats.ts) against a real nats-server: the write-path
// contract (./contract.ts), then what a control stream adds: several nodes applying one
// history alike, exactly once across restarts, caches told of other nodes' writes, and a
// command no node can apply stopping the follower rather than being skipped.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { connect, headers } from 'nats';
import { encode } from '@msgpack/msgpack';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { AppliedElsewhereError, commandsOn, ControlUnavailableError, ForeignStateError, UnknownCommandError, type AnyCommandSpec } from '../../src/state/index.js';
import type { NatsWrites } from '../../src/state/nats.js';
import { natsWrites } from '../helpers/cluster-handle.js';
import { controlPositionKey, controlSubject } from '../../src/state/control-stream.js';
import { natsServerForSuite } from '../helpers/nats.js';
import { errorResponse } from '../../src/http/reply.js';
import { createLogger } from '../../src/logger.js';
import { COMMANDS } from '../helpers/commands.js';
import { bootstrap, createTenancyStore } from '../../src/access/index.js';
import { tempDir } from '../helpers/temp-dir.js';
import { runWritesContract } from './contract.js';

const nats = natsServerForSuite();
let streams = 0;
const freshStream = () => `HEDGEROW_CONTROL_TEST_${process.pid}_${++streams}`;

runWritesContract({
  name: 'NATS JetStream control stream',
  setup: () => nats.start(),
  teardown: () => nats.close(),
  open: (store, specs) => natsWrites(nats.server().url, { store, specs, stream: freshStream() }),
  close: (writes) => (writes as NatsWrites).close(),
});

const key = (name: string) => ['nats-writes', name];
const read = (store: Store, name: string) => store.tenancy.get(key(name));
const defineCommand = commandsOn<Store>();
const put = defineCommand('nw.put', (store, p: { name: string; value: unknown }): unknown => {
  const before = read(store, p.name);
  store.tenancy.put(key(p.name), p.value);
  return before ?? null;
});
const next = defineCommand('nw.next', (store, p: { name: string }): number => {
  const n = ((read(store, `seq:${p.name}`) as number | undefined) ?? 0) + 1;
  store.tenancy.put(key(`seq:${p.name}`), n);
  return n;
});
const SPECS: AnyCommandSpec<Store>[] = [put, next];

const s = suite('NATS control stream: several nodes');
let dirs: string[] = [];
let open: NatsWrites[] = [];
let stores: Store[] = [];
s.before(() => nats.start());
s.after(() => nats.close());
s.after.each(async () => {
  for (const w of open) await w.close();
  for (const st of stores) await st.close().catch(() => undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = []; open = []; stores = [];
});

function node(dir = tempDir('hedgerow-control-node-')): Store {
  if (!dirs.includes(dir)) dirs.push(dir);
  const st = openStore(dir, tables);
  stores.push(st);
  return st;
}
async function writes(store: Store, stream: string, specs: readonly AnyCommandSpec<Store>[] = SPECS): Promise<NatsWrites> {
  const w = await natsWrites(nats.server().url, { store, specs, stream });
  open.push(w);
  return w;
}
async function until(check: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

s('commands submitted on two nodes at once are applied in one order everywhere', async () => {
  const stream = freshStream();
  const [a, b, c] = [node(), node(), node()];
  const [wa, wb, wc] = [await writes(a, stream), await writes(b, stream), await writes(c, stream)];
  const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? wa : wb).submit(next, { name: 'flag' })));
  // Each submitter got the id the stream's order gave its command: all distinct, 1..30.
  assert.equal([...ids].sort((x, y) => x - y), Array.from({ length: 30 }, (_, i) => i + 1));
  await until(() => [wa, wb, wc].every((w) => w.applied() === 30));
  for (const st of [a, b, c]) assert.is(read(st, 'seq:flag'), 30);
  assert.equal([wa.applied(), wb.applied(), wc.applied()], [30, 30, 30]);
  assert.is(wc.lag(), 0);
});

s('a write on one node is read on another once applied there, and its caches are told it came from elsewhere', async () => {
  const stream = freshStream();
  const [a, b] = [node(), node()];
  const [wa, wb] = [await writes(a, stream), await writes(b, stream)];
  const seen: string[] = [];
  wa.onApplied((kind, origin) => seen.push(`a:${kind}:${origin}`));
  wb.onApplied((kind, origin) => seen.push(`b:${kind}:${origin}`));
  await wa.submit(put, { name: 'x', value: 1 });
  assert.is(read(a, 'x'), 1);
  await until(() => read(b, 'x') === 1);
  await until(() => seen.length === 2);
  assert.equal(seen.sort(), ['a:nw.put:here', 'b:nw.put:elsewhere']);
});

s('a node started later, or restarted, applies what it missed exactly once and is caught up only then', async () => {
  const stream = freshStream();
  const a = node();
  const wa = await writes(a, stream);
  for (let i = 0; i < 50; i++) await wa.submit(next, { name: 'n' });
  const dir = tempDir('hedgerow-control-late-');
  const late = node(dir);
  const wl = await writes(late, stream);
  assert.is(wl.ready(), false);
  await wl.caughtUp();
  assert.ok(wl.ready());
  assert.is(read(late, 'seq:n'), 50);
  assert.is(late.positions.get(controlPositionKey(wl.id)), 50);
  // Restarted: picks up from its stored sequence; nothing is applied twice.
  await wl.close();
  open = open.filter((w) => w !== wl);
  await late.close();
  stores = stores.filter((st) => st !== late);
  for (let i = 0; i < 5; i++) await wa.submit(next, { name: 'n' });
  const again = node(dir);
  const wr = await writes(again, stream);
  await wr.caughtUp();
  assert.is(read(again, 'seq:n'), 55);
  assert.is(wr.applied(), 55);
});

s('two followers over one data dir (a CLI beside serve) apply each command once; the one that lost says so', async () => {
  const stream = freshStream();
  const dir = tempDir('hedgerow-control-shared-');
  const st = node(dir);
  const [w1, w2] = [await writes(st, stream), await writes(st, stream)];
  const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => (i % 2 ? w1 : w2).submit(next, { name: 'shared' })));
  await until(() => w1.applied() === 20 && w2.applied() === 20);
  assert.is(read(st, 'seq:shared'), 20);
  for (const r of results) {
    if (r.status === 'rejected') assert.instance(r.reason, AppliedElsewhereError);
  }
  const values = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  assert.is(new Set(values).size, values.length);
});

s('nodes bootstrapping an empty stream at once make one organization, one project 1 and one admin; only one says it created them', async () => {
  const stream = freshStream();
  const stores3 = [node(), node(), node()];
  const all = await Promise.all(stores3.map((st) => writes(st, stream, COMMANDS)));
  const boots = await Promise.all(all.map((w, i) => bootstrap(createTenancyStore(stores3[i], w))));
  assert.equal(boots.map((b) => b.created).filter(Boolean), [true]);
  assert.is(new Set(boots.map((b) => b.project.api_token)).size, 1);
  await until(() => all.every((w) => w.applied() === 3));
  for (const st of stores3) {
    const t = createTenancyStore(st, all[0]);
    assert.equal([t.projects().length, t.users().length, t.firstOrganization()!.id], [1, 1, boots[0].project.organization_id]);
  }
  // A node joining later finds it and bootstraps nothing.
  const late = node();
  const wl = await writes(late, stream, COMMANDS);
  await wl.caughtUp();
  const joined = await bootstrap(createTenancyStore(late, wl));
  assert.is(joined.created, false);
  assert.is(joined.project.api_token, boots[0].project.api_token);
  assert.is(wl.applied(), 3);
});

s('a data dir holding management state from elsewhere is refused', async () => {
  const stream = freshStream();
  const embedded = node();
  await createTenancyStore(embedded, (await import('../../src/state/index.js')).createLocalWrites(embedded, COMMANDS)).createOrganization('local');
  const err = await natsWrites(nats.server().url, { store: embedded, specs: COMMANDS, stream, holdsState: () => true })
    .then((w) => { open.push(w); return null; }, (e: Error) => e);
  assert.instance(err, ForeignStateError);
  // One that applied another cluster's stream too.
  const other = node();
  const wo = await writes(other, freshStream(), COMMANDS);
  await createTenancyStore(other, wo).createOrganization('theirs');
  const err2 = await natsWrites(nats.server().url, { store: other, specs: COMMANDS, stream }).then(() => null, (e: Error) => e);
  assert.instance(err2, ForeignStateError);
});

s('the followers come back after nats-server is killed and restarted: later writes reach every node', async () => {
  const stream = freshStream();
  const [a, b] = [node(), node()];
  const [wa, wb] = [await writes(a, stream), await writes(b, stream)];
  await wa.submit(put, { name: 'before', value: 1 });
  await until(() => wb.applied() === 1);
  await nats.server().stop({ crash: true });
  await nats.server().restart();
  // Submissions fail while the client reconnects; then they go through, and B follows.
  const end = Date.now() + 15_000;
  let value: unknown;
  for (;;) {
    try {
      value = await wa.submit(put, { name: 'after', value: 2 });
      break;
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  assert.is(value, null);
  await until(() => wb.applied() === wa.applied(), 15_000);
  assert.is(read(b, 'after'), 2);
  assert.ok(wa.ready() && wb.ready());
});

s('a command no applier here knows stops the follower at it (not skipped), and the node is no longer ready', async () => {
  const stream = freshStream();
  const a = node();
  const halted: Error[] = [];
  const wa = await natsWrites(nats.server().url, { store: a, specs: SPECS, stream, onHalt: (e) => halted.push(e) });
  open.push(wa);
  await wa.submit(put, { name: 'before', value: 1 });
  const nc = await connect({ servers: nats.server().url });
  const h = headers();
  h.set('Nats-Msg-Id', 'from-a-newer-node');
  await nc.jetstream().publish(controlSubject(stream), encode({ kind: 'nw.from_the_future', payload: {} }), { headers: h });
  await nc.jetstream().publish(controlSubject(stream), encode({ kind: 'nw.put', payload: { name: 'after', value: 2 } }));
  await nc.close();
  await until(() => halted.length === 1);
  assert.instance(halted[0], UnknownCommandError);
  assert.is(wa.ready(), false);
  assert.is(wa.applied(), 1);
  assert.is(read(a, 'after'), undefined);
  const err = await wa.submit(put, { name: 'x', value: 1 }).then(() => null, (e: Error) => e);
  assert.instance(err, UnknownCommandError);
});

s('a submission while NATS is down fails at once or within the acknowledgement timeout; once it is back, writes go through', async () => {
  const stream = freshStream();
  const a = node();
  const wa = await natsWrites(nats.server().url, { store: a, specs: SPECS, stream }, { ackTimeoutMs: 500 });
  open.push(wa);
  await wa.submit(put, { name: 'up', value: 1 });
  await nats.server().pause();
  try {
    // Refused, not left waiting; how soon is measured by bench/latencies.js (control-frozen).
    const err = await wa.submit(put, { name: 'down', value: 1 }).then(() => null, (e: Error) => e);
    assert.ok(err, 'refused');
  } finally {
    nats.server().resume();
  }
  // Served again: the follower comes back and new writes go through.
  assert.is(await wa.submit(put, { name: 'again', value: 2 }), null);
  assert.is(read(a, 'again'), 2);
});

s.run();

const http = suite('NATS control stream: HTTP');
http('a management write the control stream did not take answers 503, as capture does', () => {
  const r = errorResponse(new ControlUnavailableError('no ack'), createLogger('silent'));
  assert.is(r.status, 503);
  assert.is(JSON.parse(r.body as string).code, 'service_unavailable');
});
http.run();
