// The cluster's timings (src/cluster/timings.ts): the defaults hedgerow has always used,
// HEDGEROW_CLUSTER_TIME_SCALE scaling the leases and heartbeats together (the export claim
// TTL as configured included), never the stall bound or the acknowledgement timeout, and the
// opener's overrides of any field.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError } from '../../src/settings.js';
import { parseCommandLine } from '../../src/cli/main.js';
import { clusterTimings } from '../../src/cluster/index.js';

const s = suite('cluster timings');
const parse = (env: NodeJS.ProcessEnv) => parseCommandLine(['serve'], env).config;

s('the defaults: claims 10 s, export claims 30 s, node announcements 15 s, status heartbeat 2 s and lost after 10 s, stall and ack 5 s', () => {
  assert.is(parse({}).clusterTimeScale, 1);
  assert.equal(clusterTimings(parse({})), {
    claimTtlMs: 10_000, exportClaimTtlMs: 30_000, nodeTtlMs: 15_000, statusHeartbeatMs: 2_000, statusLostAfterMs: 10_000, stallMs: 5_000, ackTimeoutMs: 5_000,
  });
});

s('HEDGEROW_CLUSTER_TIME_SCALE scales the leases and heartbeats, not the bounds on a server\'s answers', () => {
  const config = parse({ HEDGEROW_CLUSTER_TIME_SCALE: '0.1', HEDGEROW_EXPORT_CLAIM_TTL_MS: '3000' });
  assert.is(config.clusterTimeScale, 0.1);
  assert.equal(clusterTimings(config), {
    claimTtlMs: 1_000, exportClaimTtlMs: 300, nodeTtlMs: 1_500, statusHeartbeatMs: 200, statusLostAfterMs: 1_000, stallMs: 5_000, ackTimeoutMs: 5_000,
  });
  assert.is(clusterTimings(parse({}), { stallMs: 250, claimTtlMs: 1500 }).stallMs, 250, 'an override of any field');
  assert.is(clusterTimings(parse({}), { claimTtlMs: 1500 }).claimTtlMs, 1500);
});

s('refuses zero, more than 1 and text, naming the setting', () => {
  for (const bad of ['0', '1.5', '2', 'fast', '-0.5', '.']) {
    assert.throws(() => parse({ HEDGEROW_CLUSTER_TIME_SCALE: bad }), (err: unknown) =>
      err instanceof ConfigError && /HEDGEROW_CLUSTER_TIME_SCALE|clusterTimeScale/.test((err as Error).message), bad);
  }
});

s.run();
