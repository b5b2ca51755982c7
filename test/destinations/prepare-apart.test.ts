// A chunk whose Hog worker fails (out of memory, past its deadline) is started again event
// by event and function by function (src/destinations/runtime/pipeline.ts): the pair that
// fails alone is set aside as filtering_failed, the others are prepared, each invocation
// with its event's packed globals.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { prepareApart } from '../../src/destinations/runtime/pipeline.js';
import type { StartOutcome, StartResult, StartTask } from '../../src/destinations/runtime/steps.js';
import type { EventContext } from '../../src/destinations/runtime/globals.js';
import type { HogExecTasks } from '../../src/destinations/tasks.js';
import { PoolOverloadedError, type TaskRunner } from '../../src/pools/index.js';

const s = suite('destinations: a failing prepare chunk is prepared apart');

const ctx = (uuid: string): EventContext => ({
  project: { id: 1, name: 'p', url: 'http://x/project/1' },
  event: { uuid, event: 'e', distinct_id: 'd', properties: {}, timestamp: '2026-01-01T00:00:00Z', elements_chain: '' },
  person: null, groups: {},
});

// A pool whose worker dies on any task holding event "bad" with function 1; function 0 makes
// an invocation of "good", whose pack is its event's uuid.
function pool(failure: () => Error): TaskRunner<HogExecTasks> & { tasks: number } {
  const runner = {
    tasks: 0,
    async run(_kind: string, input: unknown): Promise<StartResult> {
      runner.tasks++;
      const task = input as StartTask;
      if (task.events.some((e) => e.uuid === 'bad' && e.functions.includes(1))) throw failure();
      return {
        outcomes: task.events.flatMap((e, ev) => e.functions.map((fn): StartOutcome => (e.uuid === 'good' && fn === 0
          ? { fn, ev, kind: 'invocation', mappingIndex: -1, maskKey: null, slice: null, token: null }
          : { fn, ev, kind: 'filtered' }))),
        packs: task.events.map((e) => (e.uuid === 'good' && e.functions.includes(0) ? Buffer.from(e.uuid) : null)),
      };
    },
  };
  return runner as never;
}

const task: StartTask = {
  functions: [], events: [{ uuid: 'good', ctx: ctx('good'), functions: [0, 1] }, { uuid: 'bad', ctx: ctx('bad'), functions: [0, 1] }], start: [true, true], forget: [],
};
const good = Buffer.from('good');

s('the pair that kills the worker fails alone; every other pair keeps its event index', async () => {
  const p = pool(() => new Error('Worker terminated due to reaching memory limit: JS heap out of memory'));
  const out = await prepareApart(p, task, () => false);
  assert.equal(out.outcomes, [
    { fn: 0, ev: 0, kind: 'invocation', mappingIndex: -1, maskKey: null, slice: null, token: null }, { fn: 1, ev: 0, kind: 'filtered' }, { fn: 0, ev: 1, kind: 'filtered' },
    { fn: 1, ev: 1, kind: 'filtering_failed', message: 'Error filtering event bad: HogWorkerError: Worker terminated due to reaching memory limit: JS heap out of memory' },
  ]);
  assert.equal(out.packs, [good, null, null, null]);
  assert.is(p.tasks, 5);
});

s('a full pool or a closing consumer is not the event\'s fault: the failure goes on to the batch', async () => {
  await prepareApart(pool(() => new PoolOverloadedError('worker pool queue is full')), task, () => false).then(
    () => assert.unreachable(), (err) => assert.instance(err, PoolOverloadedError));
  await prepareApart(pool(() => new Error('pool is closed')), task, () => true).then(
    () => assert.unreachable(), (err) => assert.match((err as Error).message, 'pool is closed'));
});

s.run();
