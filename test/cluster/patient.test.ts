// Creating JetStream assets on a cluster that is slow to agree, or from nodes starting
// together (src/cluster/patient.ts): a request that timed out, or that raced another node's
// creation of the same stream, is asked again, a few times; any other failure is not.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, StorageType } from 'nats';
import { CREATE_ATTEMPTS, createPatiently } from '../../src/cluster/patient.js';
import { startNatsServer } from '../helpers/nats.js';

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

// On a real nats-server, ten connections (ten nodes) creating the same thing at once, round
// after round: without the overlap asked again, about one creation in a hundred was refused,
// so these rounds all but certainly meet one.
s('nodes creating the same stream, bucket and object store at once all get the one made', async () => {
  const server = await startNatsServer();
  const ncs = await Promise.all(Array.from({ length: 10 }, () => connect({ servers: server.url })));
  try {
    const jsms = await Promise.all(ncs.map((nc) => nc.jetstreamManager()));
    for (let round = 0; round < 100; round++) {
      const infos = await Promise.all(jsms.map((jsm) => createPatiently(() => jsm.streams.add({ name: `RACE_${round}`, subjects: [`race${round}.>`] }))));
      for (const info of infos) assert.equal([info.config.name, info.config.subjects], [`RACE_${round}`, [`race${round}.>`]]);
    }
    for (let round = 0; round < 50; round++) {
      const buckets = await Promise.all(ncs.map((nc) => createPatiently(() => nc.jetstream().views.kv(`race_kv_${round}`, { history: 1, storage: StorageType.File }))));
      await buckets[0].put('k', 'v');
      assert.is((await buckets[9].get('k'))?.string(), 'v');
    }
    for (let round = 0; round < 30; round++) {
      const stores = await Promise.all(ncs.map((nc) => createPatiently(() => nc.jetstream().views.os(`race_os_${round}`, { storage: StorageType.File }))));
      assert.is((await stores[9].status()).bucket, `race_os_${round}`);
    }
    const names = (await jsms[0].streams.names().next());
    assert.is(names.filter((n) => n.startsWith('RACE_')).length, 100);
    // A stream of another name over the same subjects is refused, every time.
    const intruder = await createPatiently(() => jsms[0].streams.add({ name: 'INTRUDER', subjects: ['race0.>'] })).then(() => null, (e: Error) => e.message);
    assert.match(String(intruder), /overlap/);
  } finally {
    await Promise.all(ncs.map((nc) => nc.close()));
    await server.close();
  }
});

s.run();
