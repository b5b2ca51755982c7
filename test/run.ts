// Runs every compiled test file in one uvu process and ends with the
// `N passed, N failed` line CI reads. A skipped test counts as a failure:
// nothing may be silently skipped.
import { readdirSync, statSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

function findTests(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.js')) out.push(full);
  }
  return out;
}

const filter = process.argv[2];
const files = findTests(here).filter((f) => !filter || f.includes(filter));
const g = globalThis as unknown as { UVU_DEFER: number; UVU_QUEUE: unknown[][]; UVU_INDEX: number };
g.UVU_DEFER = 1;
g.UVU_QUEUE = [];

for (let i = 0; i < files.length; i++) {
  g.UVU_QUEUE.push([relative(here, files[i])]);
  g.UVU_INDEX = i;
  await import(pathToFileURL(files[i]).href);
}

const { exec } = await import('uvu');
let printed = '';
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  printed += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
  return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
}) as typeof process.stdout.write;
await exec();
process.stdout.write = write;

// eslint-disable-next-line no-control-regex
const plain = printed.replace(/\x1b\[[0-9;]*m/g, '');
const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
const failed = total - passed + skipped;
if (files.length === 0 || total === 0) {
  console.log('no tests found');
  process.exitCode = 1;
}
if (failed > 0) process.exitCode = 1;
console.log(`${passed} passed, ${failed} failed`);
// Servers, workers or sockets a failing test left open must not keep CI waiting.
setTimeout(() => process.exit(), 200).unref();
