// Waiting on a condition instead of for a while: tests wait for what they can observe
// (a consumer's position, an answer, a file), never a fixed delay.
// Polls until `check` returns a truthy value (consumers apply the log asynchronously).
// The bound is generous: consumer threads start slowly on a loaded two-core machine, and
// a condition that holds returns at its first true poll whatever the bound.
// `intervalMs` between checks: given, a fixed pause (longer for a check that starts a
// process, a CLI command); by default the pause grows from 10 ms to 100 ms, so a condition
// that holds soon is seen at once and one that takes seconds (a claim lapsing, a node
// starting) is not asked about 40 times a second: each check is work for the test and the
// servers it asks, and the suite runs CPU-bound on two cores.
const FIRST_PAUSE_MS = 10;
const MAX_PAUSE_MS = 100;
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, intervalMs?: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let pause = intervalMs ?? FIRST_PAUSE_MS;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, pause));
    if (intervalMs === undefined) pause = Math.min(MAX_PAUSE_MS, pause * 1.5);
  }
}

// Resolves once the clock shows a later millisecond than when called: records created
// after it sort after those created before it (ordering by creation time needs distinct
// times, and two writes can land in one millisecond).
export async function clockTick(): Promise<void> {
  const at = Date.now();
  while (Date.now() <= at) await new Promise((r) => setImmediate(r));
}
