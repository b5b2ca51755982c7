// Whether the WASM parser trapped: a text that exhausts its stack (./source-bounds.ts
// TOO_DEEP_TO_PARSE). The instance's memory is not to be trusted after a trap, so whoever
// holds one replaces it (./wasm-parser.ts, src/hog/parser.ts). A trap's error class is
// WebAssembly's RuntimeError, which the project's TypeScript libs do not declare.
const { RuntimeError } = (globalThis as unknown as { WebAssembly: { RuntimeError: new () => Error } }).WebAssembly;

export const isParserTrap = (err: unknown): boolean => err instanceof RuntimeError;
