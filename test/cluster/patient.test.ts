// Creating JetStream assets on a cluster that is slow to agree (src/cluster/patient.ts): a
// request that timed out is asked again, a few times; any other failure is not.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CREATE_ATTEMPTS, createPatiently } from '../../src/cluster/patient.js';

const s = suite('cluster: creating assets patiently');
const timeout = () => Object.assign(new Error('TIMEOUT'), { code: 'TIMEOUT' });

s('timed-out attempts are asked again until one succeeds', async () => {
  let calls = 0;
  assert.is(await createPatiently(async () => { if (++calls < 3) throw timeout(); return 'made'; }), 'made');
  assert.is(calls, 3);
});

s('a failure other than a timeout is not asked again; timeouts past the attempts are thrown', async () => {
  let calls = 0;
  const refused = await createPatiently(async () => { calls++; throw Object.assign(new Error('stream name already in use'), { code: '400' }); }).catch((e: Error) => e.message);
  assert.is(refused, 'stream name already in use');
  assert.is(calls, 1);
  calls = 0;
  const timedOut = await createPatiently(async () => { calls++; throw timeout(); }).catch((e: { code?: string }) => e.code);
  assert.is(timedOut, 'TIMEOUT');
  assert.is(calls, CREATE_ATTEMPTS);
});

s.run();
