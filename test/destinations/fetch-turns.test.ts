// The functions' turn at the fetch slots (src/destinations/runtime/fetch-turns.ts): a function
// served goes to the end while it has invocations waiting, and leaves the turn when it has none.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createFetchTurns } from '../../src/destinations/runtime/fetch-turns.js';

const s = suite('destinations fetch turns');
const ids = (turn: readonly { id: string }[]) => turn.map((p) => p.id);

s('functions take turns in the order they began waiting; one served with some left goes to the end', () => {
  const turns = createFetchTurns<string>();
  for (const [fn, inv] of [['a', 'a1'], ['b', 'b1'], ['a', 'a2'], ['c', 'c1']]) turns.wait(turns.paceOf(fn), inv);
  assert.equal(ids(turns.turn()), ['a', 'b', 'c']);
  const a = turns.paceOf('a');
  const list = a.waiting!;
  assert.equal(list, ['a1', 'a2']);
  list.shift();
  turns.served(a, list);
  assert.equal(ids(turns.turn()), ['b', 'c', 'a']);
});

s('a function served with nothing left leaves the turn and joins again at the end when one waits', () => {
  const turns = createFetchTurns<string>();
  turns.wait(turns.paceOf('a'), 'a1');
  turns.wait(turns.paceOf('b'), 'b1');
  const a = turns.paceOf('a');
  const list = a.waiting!;
  list.length = 0;
  turns.served(a, list);
  assert.is(a.waiting, null);
  assert.equal(ids(turns.turn()), ['b']);
  turns.wait(a, 'a2');
  assert.equal(ids(turns.turn()), ['b', 'a']);
});

s('a turn that served the function meanwhile (its list replaced) is left as it put it', () => {
  const turns = createFetchTurns<string>();
  turns.wait(turns.paceOf('a'), 'a1');
  turns.wait(turns.paceOf('b'), 'b1');
  const a = turns.paceOf('a');
  const stale = a.waiting!;
  // An inner turn emptied a's list and a new invocation began waiting: a is at the end with a new list.
  stale.length = 0;
  turns.served(a, stale);
  turns.wait(a, 'a2');
  assert.equal(ids(turns.turn()), ['b', 'a']);
  // The outer turn, done with its old list, changes nothing.
  turns.served(a, stale);
  assert.equal(ids(turns.turn()), ['b', 'a']);
  assert.equal(a.waiting, ['a2']);
});

s('a pace is one record per function, kept, with its counters', () => {
  const turns = createFetchTurns<string>();
  assert.is(turns.find('a'), undefined);
  const a = turns.paceOf('a');
  a.fetching = 2;
  assert.is(turns.paceOf('a'), a);
  assert.is(turns.find('a')!.fetching, 2);
  assert.equal({ holdUntil: a.holdUntil, waiting: a.waiting }, { holdUntil: 0, waiting: null });
});

s.run();
