// The uWebSockets.js package we install silently falls back to a JS stub when its
// native binary does not load (wrong Node ABI, missing glibc symbols). That stub
// exports App but throws "Not implemented" deep inside request handling, so we load
// the binary itself at start-up and refuse to run without it.
import { createRequire } from 'node:module';

export function assertNativeUws(): void {
  const require = createRequire(import.meta.url);
  const file = `uWebSockets.js/binaries/uws_${process.platform}_${process.arch}_${process.versions.modules}.node`;
  try {
    require(file);
  } catch (err) {
    throw new Error(
      `uWebSockets.js native binding could not be loaded (${file}): ${(err as Error).message}. ` +
        'hedgerow needs Node 16, 18 or 20 on linux/darwin with a matching binary; refusing to start on the JS fallback.',
    );
  }
}
