// A seeded xorshift32 generator of numbers in [0, 1): reproducible random streams for
// tests and benchmarks, with every bit usable (an LCG's low bits repeat with short periods).
export function xorshift(seed: number): () => number {
  let x = seed | 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}
