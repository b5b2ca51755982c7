// A flag change answered by the management API is seen by the very next /decide, even
// while the flag workers are kept busy by other clients, end to end through the pool. It
// would catch an answer given before the write is committed; the worker's stale read
// snapshot it is also exposed to (lmdb-js ends one only from a timer of the worker's event
// loop) rarely shows here, so ./worker-snapshot.test.ts pins that one down deterministically.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, NO_CONSUMERS, type TestServer } from '../helpers/server.js';
import { createFlag, evaluate, patchFlag } from './serving.js';

const s = suite('/decide reads its own writes');
let t: TestServer;

// No log consumers: nothing here reads what they apply.
s.before(async () => { t = await startTestServer({ consumers: NO_CONSUMERS }); });
s.after(async () => { await t?.close(); });

s('a flag created or rolled out over the API answers in the next /decide while other clients keep the workers busy', async () => {
  let busy = true;
  // Four bystanders, each with a request always in flight, keep the test profile's one flag
  // worker busy (a batch in hand whenever the reader's request comes). 16 made the batches
  // larger and each of the 60 rounds slower, for ~2 s more CPU per run.
  const background = (async () => {
    while (busy) await Promise.all(Array.from({ length: 4 }, (_, i) => evaluate(t, '/decide?v=3', { distinct_id: `bystander-${i}` })));
  })();
  try {
    for (let i = 0; i < 60; i++) {
      const flag = await createFlag(t, { key: `new-${i}`, filters: { groups: [{ properties: [], rollout_percentage: 0 }] } });
      const created = await evaluate(t, '/decide?v=3', { distinct_id: 'reader' });
      assert.is(created.body.featureFlags[`new-${i}`], false, `flag new-${i} right after its creation`);
      await patchFlag(t, flag.id, { filters: { groups: [{ properties: [], rollout_percentage: 100 }] } });
      const rolledOut = await evaluate(t, '/decide?v=3', { distinct_id: 'reader' });
      assert.is(rolledOut.body.featureFlags[`new-${i}`], true, `flag new-${i} right after its rollout`);
    }
  } finally {
    busy = false;
    await background;
  }
});

s.run();
