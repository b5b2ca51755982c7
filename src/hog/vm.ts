// @posthog/hogvm is CommonJS without an exports map: Node's ESM loader cannot see all of its
// named exports, and importing it from ESM lexes its 170 KB for them (about half of its load
// time, paid by every thread that runs Hog). It is required instead, and its exports taken
// here once.
import { createRequire } from 'node:module';

export type { ExecOptions, ExecResult, VMState } from '@posthog/hogvm';

const hogvm = createRequire(import.meta.url)('@posthog/hogvm') as typeof import('@posthog/hogvm');

export const { exec, STL, ASYNC_STL, printHogStringOutput, convertHogToJS, UncaughtHogVMException, HogVMException } = hogvm;
