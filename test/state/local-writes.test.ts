// The embedded write path (src/state/local.ts) and a model of a control stream both pass
// the write-path contract (./contract.ts).
import { createLocalWrites } from '../../src/state/index.js';
import { createReplicatedWrites } from '../helpers/replicated-writes.js';
import { runWritesContract } from './contract.js';

runWritesContract({ name: 'embedded LMDB transaction', open: (store, specs) => createLocalWrites(store, specs) });
runWritesContract({ name: 'ordered msgpack stream, one node', open: (store, specs) => createReplicatedWrites([store], specs) });
