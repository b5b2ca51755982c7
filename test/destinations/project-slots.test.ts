// Per-project slots (src/destinations/api/project-slots.ts): a project's operations beyond
// its slots wait in order, past its queue they are refused, and other projects never wait.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { projectSlots } from '../../src/destinations/api/project-slots.js';

const s = suite('destinations: per-project slots');

s('one in flight and one waiting per project: a third is refused, another project enters at once, releases hand the slot on in order', async () => {
  const slots = projectSlots(1, 1);
  const order: string[] = [];
  const first = await slots.enter(1)!;
  const second = slots.enter(1)!.then((release) => { order.push('second'); return release; });
  assert.is(slots.enter(1), null);
  const other = await slots.enter(2)!;
  order.push('other');
  first();
  first();
  const releaseSecond = await second;
  assert.equal(order, ['other', 'second']);
  const third = slots.enter(1);
  assert.ok(third !== null, 'the queue has room again');
  releaseSecond();
  (await third)();
  other();
});

s.run();
