// lmdb-js encodes values with msgpackr, which keeps one buffer per thread (shared by every
// encoder of the thread) grown to fit the largest value it has encoded and never gives it
// back: up to six times a string's length (three bytes a character at worst, then doubled).
// A consumer thread that once stored an event of 17 MiB held a 102 MB buffer for good
// (bench/RESULTS.md, "burst of large bodies"). After a transaction that stored a large
// value, when nothing it encoded is still waiting to be written, the thread hands msgpackr
// a small buffer again; the large one becomes garbage.
import type { RootDatabase } from 'lmdb';

// msgpackr's own starting size.
const SMALL_BYTES = 8192;

interface Encoder { useBuffer?(buffer: Uint8Array): void }

export function releaseEncodeBuffer(root: RootDatabase): void {
  (root as unknown as { encoder?: Encoder }).encoder?.useBuffer?.(Buffer.allocUnsafeSlow(SMALL_BYTES));
}
