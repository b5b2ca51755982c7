// What `console.warn` printed while `run` ran (SDKs report through it), kept off the test output.
export async function warningsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const warnings: string[] = [];
  const warn = console.warn;
  console.warn = (message: string) => { warnings.push(message); };
  try {
    await run();
  } finally {
    console.warn = warn;
  }
  return warnings;
}
