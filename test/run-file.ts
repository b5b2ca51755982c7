// Runs one compiled test file with uvu, in a child process of test/run.ts. Its output
// ends with uvu's "Total / Passed / Skipped" lines, which the runner reads; a file that
// throws while loading prints the error and no such lines, so it counts as failed.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const file = resolve(process.argv[2]);
const g = globalThis as unknown as { UVU_DEFER: number; UVU_QUEUE: unknown[][]; UVU_INDEX: number };
g.UVU_DEFER = 1;
// The runner heads the file's output with its name.
g.UVU_QUEUE = [[null]];
g.UVU_INDEX = 0;

try {
  await import(pathToFileURL(file).href);
} catch (err) {
  process.stdout.write(`the file threw while loading: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
}
const { exec } = await import('uvu');
await exec();
// Servers, workers or sockets a failing test left open must not keep the runner waiting
// (it also kills this process's group once it exits).
setTimeout(() => process.exit(), 200).unref();
