// The contract of background calculations' query statuses (src/insights/api/kv-statuses.ts)
// on both implementations of the cluster handle. Embedded (statuses.test.ts) there is one
// node, and "the other node" is the same one; with NATS (nats-statuses.test.ts) two handles
// on one real nats-server stand for two serve nodes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Statuses } from '../../src/insights/api/statuses.js';
import { eventually } from '../helpers/wait.js';

export interface StatusesImplementation {
  name: string;
  // The node a calculation runs on and another node of the same cluster, keeping statuses
  // `keepMs` after they end.
  open(keepMs: number): Promise<{ runner: Statuses; other: Statuses }>;
  setup?(): Promise<void>;
  teardown?(): Promise<void>;
}

const KEEP_MS = 10 * 60_000;

export function runStatusesContract(impl: StatusesImplementation): void {
  const s = suite(`query statuses contract: ${impl.name}`);
  let opened: Statuses[] = [];
  const open = async (keepMs = KEEP_MS) => {
    const nodes = await impl.open(keepMs);
    opened.push(nodes.runner, ...(nodes.other === nodes.runner ? [] : [nodes.other]));
    return nodes;
  };
  if (impl.setup) s.before(impl.setup);
  if (impl.teardown) s.after(impl.teardown);
  s.after.each(async () => {
    for (const st of opened) await st.close();
    opened = [];
  });

  s('a calculation reads running on both nodes, then complete with its results', async () => {
    const { runner, other } = await open();
    const now = Date.now();
    const { status, signal } = await runner.start(1, 'q1', 7, now);
    assert.equal([status.complete, status.error, status.insight_id, status.team_id, status.id], [false, false, 7, 1, 'q1']);
    const seen = await other.get(1, 'q1', Date.now());
    assert.equal(seen, status);
    assert.is(await other.get(2, 'q1', Date.now()), undefined);
    assert.is(await other.get(1, 'q2', Date.now()), undefined);
    await runner.finish(1, 'q1', now + 1000, { results: { results: [1, 2, 3], is_cached: false } });
    for (const node of [runner, other]) {
      const done = await node.get(1, 'q1', Date.now());
      assert.equal([done?.complete, done?.error, done?.results], [true, false, { results: [1, 2, 3], is_cached: false }]);
      assert.is(done?.end_time, new Date(now + 1000).toISOString());
      assert.is(done?.expiration_time, new Date(now + 1000 + KEEP_MS).toISOString());
    }
    assert.not.ok(signal.aborted);
  });

  s('a failed calculation reads as its error', async () => {
    const { runner, other } = await open();
    await runner.start(1, 'failing', null, Date.now());
    await runner.finish(1, 'failing', Date.now(), { error: 'no such event' });
    const st = await other.get(1, 'failing', Date.now());
    assert.equal([st?.complete, st?.error, st?.error_message], [true, true, 'no such event']);
  });

  s('a cancel through the other node aborts the calculation where it runs; a late result does not undo it', async () => {
    const { runner, other } = await open();
    const { signal } = await runner.start(1, 'slow', null, Date.now());
    assert.ok(await other.cancel(1, 'slow', Date.now()));
    await eventually(async () => signal.aborted);
    for (const node of [runner, other]) {
      const st = await node.get(1, 'slow', Date.now());
      assert.equal([st?.complete, st?.error, st?.error_message], [true, true, 'Query cancelled']);
    }
    await runner.finish(1, 'slow', Date.now(), { results: [] });
    assert.is((await other.get(1, 'slow', Date.now()))?.error_message, 'Query cancelled');
  });

  s('a cancel on the runner itself aborts at once', async () => {
    const { runner, other } = await open();
    const { signal } = await runner.start(1, 'mine', null, Date.now());
    assert.ok(await runner.cancel(1, 'mine', Date.now()));
    assert.ok(signal.aborted);
    assert.is((await other.get(1, 'mine', Date.now()))?.error_message, 'Query cancelled');
  });

  s('cancelling what does not exist says so; cancelling what ended changes nothing', async () => {
    const { runner, other } = await open();
    assert.not.ok(await other.cancel(1, 'nope', Date.now()));
    await runner.start(1, 'ended', null, Date.now());
    await runner.finish(1, 'ended', Date.now(), { results: [42] });
    assert.ok(await other.cancel(1, 'ended', Date.now()));
    const st = await runner.get(1, 'ended', Date.now());
    assert.equal([st?.error, st?.results], [false, [42]]);
  });

  s('an id that ended may run again', async () => {
    const { runner, other } = await open();
    await runner.start(1, 'again', null, Date.now());
    await runner.finish(1, 'again', Date.now(), { results: [1] });
    const { signal } = await other.start(1, 'again', null, Date.now());
    assert.is((await runner.get(1, 'again', Date.now()))?.complete, false);
    await other.finish(1, 'again', Date.now(), { results: [2] });
    assert.equal((await runner.get(1, 'again', Date.now()))?.results, [2]);
    assert.not.ok(signal.aborted);
  });

  s('any id a client chooses is its own (characters no key admits, long ones)', async () => {
    const { runner, other } = await open();
    const ids = ['a b/c.d*>', 'é'.repeat(2000), 'x'];
    for (const [i, id] of ids.entries()) await runner.start(3, id, null, Date.now()).then(() => runner.finish(3, id, Date.now(), { results: [i] }));
    for (const [i, id] of ids.entries()) assert.equal((await other.get(3, id, Date.now()))?.results, [i]);
  });

  s('a status is forgotten its keep time after it ends, not while it runs', async () => {
    const keepMs = 1500;
    const { runner, other } = await open(keepMs);
    await runner.start(1, 'short', null, Date.now());
    await runner.start(1, 'long', null, Date.now());
    await runner.finish(1, 'short', Date.now(), { results: [] });
    const ended = Date.now();
    assert.ok(await other.get(1, 'short', Date.now()));
    const gone = await eventually(async () => ((await other.get(1, 'short', Date.now())) === undefined ? Date.now() : null), keepMs + 20_000);
    assert.ok(gone - ended >= keepMs - 100, `forgotten ${gone - ended} ms after it ended`);
    // Running past the keep time: still there, still running.
    const long = await other.get(1, 'long', Date.now());
    assert.equal([long?.complete, long?.error], [false, false]);
  });

  s.run();
}
