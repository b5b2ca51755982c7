// Waiting on a condition instead of for a while: tests wait for what they can observe
// (a consumer's position, an answer, a file), never a fixed delay.
// Polls until `check` returns a truthy value (consumers apply the log asynchronously).
// The bound is generous: consumer threads start slowly on a loaded two-core machine, and
// a condition that holds returns at its first true poll whatever the bound.
// `intervalMs` between checks: longer for a check that starts a process (a CLI command).
export async function eventually<T>(check: () => Promise<T | null | undefined | false>, timeoutMs = 20_000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// Resolves once the clock shows a later millisecond than when called: records created
// after it sort after those created before it (ordering by creation time needs distinct
// times, and two writes can land in one millisecond).
export async function clockTick(): Promise<void> {
  const at = Date.now();
  while (Date.now() <= at) await new Promise((r) => setImmediate(r));
}
