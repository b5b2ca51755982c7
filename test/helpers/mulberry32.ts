// A seeded mulberry32 generator of numbers in [0, 1): small and fast, good enough to spread
// generated test cases, and reproducible, so a failure comes back with its seed. (The
// randomised suites that use it have their data tied to its stream; ./xorshift.ts is the
// other generator tests use.)
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
