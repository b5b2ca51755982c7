// Functions the VM provides. PostHog's compiler warns (but still compiles) when a program
// calls anything else: the VM would fail at run time with "Unsupported function call".

import { ASYNC_STL, STL } from '../vm.js';

// Functions the VM runs from bytecode of its own (its BYTECODE_STL, not exported).
const BYTECODE_LIBRARY = [
  'arrayCount', 'arrayExists', 'arrayFilter', 'arrayMap', 'arrayReduce', 'inCohort', 'notInCohort', 'sortableSemver',
];

const LIBRARY: ReadonlySet<string> = new Set([...Object.keys(STL), ...Object.keys(ASYNC_STL), ...BYTECODE_LIBRARY]);

export function isLibraryFunction(name: string): boolean {
  return LIBRARY.has(name);
}
