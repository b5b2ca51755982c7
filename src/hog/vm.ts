// @posthog/hogvm is CommonJS without an exports map, so Node's ESM loader cannot see all
// of its named exports; this module takes them from the default export once.

import hogvm from '@posthog/hogvm';

export type { ExecOptions, ExecResult, VMState } from '@posthog/hogvm';

export const { exec, STL, ASYNC_STL, printHogStringOutput, convertHogToJS, UncaughtHogVMException, HogVMException } = hogvm;
