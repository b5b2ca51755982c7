// Query statuses on the embedded cluster handle (the service without NATS: one node, the
// bucket in this process's memory) pass the statuses contract.
import { openStatuses } from '../../src/insights/api/kv-statuses.js';
import { clusterHandles } from '../helpers/cluster-handle.js';
import { runStatusesContract } from './statuses-contract.js';

const handles = clusterHandles();
let buckets = 0;

runStatusesContract({
  name: 'embedded (in memory)',
  async open(keepMs) {
    // Renewed more often than the shortest keep time asked for, as over NATS.
    const cluster = await handles.open(null, { timings: { statusHeartbeatMs: 300 } });
    // A bucket kept `keepMs` (the table's is kept 10 minutes).
    const n = ++buckets;
    const statuses = await openStatuses(cluster, {
      statuses: { ...cluster.assets.kv.queryStatuses, name: `QS_TEST_${n}`, ttlMs: keepMs },
      results: { ...cluster.assets.objects.queryResults, name: `QR_TEST_${n}`, ttlMs: keepMs },
    });
    return { runner: statuses, other: statuses };
  },
  teardown: () => handles.closeAll(),
});
