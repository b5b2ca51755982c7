// Query statuses in memory (the embedded service: one node) pass the statuses contract.
import { createStatuses } from '../../src/insights/api/statuses.js';
import { runStatusesContract } from './statuses-contract.js';

runStatusesContract({
  name: 'in memory',
  async open(keepMs) {
    const statuses = createStatuses({ keepMs });
    return { runner: statuses, other: statuses };
  },
});
