// The contract of the management write path (src/state/writes.ts): every implementation
// passes this one suite. The embedded LMDB path runs it in local-writes.test.ts, beside a
// model of a control stream (test/helpers/replicated-writes.ts), and the NATS
// implementation of regional ingest nodes (src/state/nats.ts) against a real nats-server
// in nats-writes.test.ts.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tables, type Store } from '../../src/tables.js';
import { commandsOn, type AnyCommandSpec, type StateWrites } from '../../src/state/index.js';
import { tempDir } from '../helpers/temp-dir.js';

export interface WritesImplementation {
  name: string;
  // The write path over `store`, with these commands registered.
  open(store: Store, specs: readonly AnyCommandSpec<Store>[]): StateWrites | Promise<StateWrites>;
  // Lets go of what `open` made (connections, followers), before the store closes.
  close?(writes: StateWrites): Promise<void>;
  // Runs once before and after the suite (a server to start).
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
}

// Test commands, on keys of their own in the tenancy database.
const key = (name: string) => ['contract', name];
const read = (store: Store, name: string) => store.tenancy.get(key(name));
const defineCommand = commandsOn<Store>();

const put = defineCommand('contract.put', (store, p: { name: string; value: unknown }): unknown => {
  const before = read(store, p.name);
  store.tenancy.put(key(p.name), p.value);
  return before ?? null;
});
// A sequence assigned from the store, as flag and project ids are.
const next = defineCommand('contract.next', (store, p: { name: string }): number => {
  const n = ((read(store, `seq:${p.name}`) as number | undefined) ?? 0) + 1;
  store.tenancy.put(key(`seq:${p.name}`), n);
  return n;
});
const failAfterWrite = defineCommand('contract.fail_after_write', (store, p: { name: string }): void => {
  store.tenancy.put(key(p.name), 'half');
  throw new Error(`refused ${p.name}`);
});
const copy = defineCommand('contract.copy', (store, p: { from: string; to: string }): unknown => {
  const value = read(store, p.from);
  store.tenancy.put(key(p.to), value);
  return value;
});
const unregistered = defineCommand('contract.unregistered', (store, p: { name: string }): void => { store.tenancy.put(key(p.name), 1); });

const SPECS = [put, next, failAfterWrite, copy];

export function runWritesContract(impl: WritesImplementation): void {
  const s = suite(`management write path contract: ${impl.name}`);
  let dir: string;
  let store: Store;
  let writes: StateWrites;
  if (impl.setup) s.before(impl.setup);
  if (impl.teardown) s.after(impl.teardown);
  s.before.each(async () => {
    dir = tempDir('hedgerow-writes-contract-');
    store = openStore(dir, tables);
    writes = await impl.open(store, SPECS);
  });
  s.after.each(async () => {
    await impl.close?.(writes);
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  s('a submission resolves with its applier\'s result, and a read after it sees the write', async () => {
    assert.is(await writes.submit(put, { name: 'a', value: 1 }), null);
    assert.is(read(store, 'a'), 1);
    assert.is(await writes.submit(put, { name: 'a', value: 2 }), 1);
    assert.is(read(store, 'a'), 2);
  });

  s('commands apply in the order they were submitted, each seeing what the earlier ones wrote', async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => writes.submit(next, { name: 'flag' })));
    assert.equal(ids, Array.from({ length: 20 }, (_, i) => i + 1));
    const [, copied] = await Promise.all([writes.submit(put, { name: 'src', value: 'v' }), writes.submit(copy, { from: 'src', to: 'dst' })]);
    assert.is(copied, 'v');
    assert.is(read(store, 'dst'), 'v');
  });

  s('an applier that throws rejects its submission and leaves nothing written; the others apply', async () => {
    const settled = await Promise.allSettled([
      writes.submit(put, { name: 'before', value: 1 }),
      writes.submit(failAfterWrite, { name: 'broken' }),
      writes.submit(put, { name: 'after', value: 2 }),
    ]);
    assert.equal(settled.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
    assert.is((settled[1] as PromiseRejectedResult).reason.message, 'refused broken');
    assert.is(read(store, 'broken'), undefined);
    assert.equal([read(store, 'before'), read(store, 'after')], [1, 2]);
  });

  s('a command whose applier is not registered is refused and writes nothing', async () => {
    const err = await writes.submit(unregistered, { name: 'x' }).then(() => null, (e: Error) => e);
    assert.instance(err, Error);
    assert.is(read(store, 'x'), undefined);
  });

  s('payloads arrive as the plain data that was submitted', async () => {
    const value = { text: 'zażółć ✓', n: -1.5, big: 2 ** 40, list: [1, 'two', null, { deep: [true, false] }], empty: {}, nothing: null };
    await writes.submit(put, { name: 'plain', value });
    assert.equal(read(store, 'plain'), value);
  });

  s('what a submission resolved is durable: it is there when the store is opened again', async () => {
    await writes.submit(put, { name: 'kept', value: 'yes' });
    await store.close();
    store = openStore(dir, tables);
    assert.is(read(store, 'kept'), 'yes');
  });

  s.run();
}
