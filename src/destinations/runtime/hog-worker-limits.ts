// The bounds of the Hog worker threads, for the pools that start them (the consumer's and the
// API's). Apart from ./run-slice.ts, which runs in those workers: importing it would load the
// Hog VM into the consumer thread, which never runs Hog itself.

// How long a worker may take over one slice (HOG_TIMEOUT_MS of Hog, the values' conversions,
// the message) before it is stopped and replaced: a thread stuck in one operation of the VM
// (a sparse array millions long walked element by element) holds up every function it serves.
export const HOG_SLICE_DEADLINE_MS = 10_000;
// How long a worker may take over one batch of events' filters, mappings and inputs.
export const HOG_PREPARE_DEADLINE_MS = 60_000;
// The Hog workers' heap: a program within the bounds above stays far below it (checked
// allocations, src/hog/checked-stl.ts); a worker past it is stopped and its tasks fail alone.
export const HOG_WORKER_HEAP_MB = 256;
