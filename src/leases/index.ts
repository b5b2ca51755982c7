// Public face of leases: work one node of a NATS cluster does at a time, claimed through a
// JetStream KV key with a TTL (./leases.ts). The claimed log consumers and export renders
// share it.
export { openLeases, type Lease, type LeaseHooks, type Leases, type LeasesOptions } from './leases.js';
