// `hedgerow hog compile FILE|-` prints a program's bytecode as JSON; `hedgerow hog run
// FILE|-` compiles and runs it, print() output on stdout. Errors go to stderr with exit
// status 1. `--globals FILE` gives run a JSON object of globals (event, person, inputs, ...).

import { readFileSync } from 'node:fs';
import { cliFetch } from './cli-fetch.js';
import { errorText, execute } from './host.js';
import { loadHogParser } from './parser.js';
import { compileProgram, DESTINATION_FUNCTIONS } from './program.js';
import { SourceLimitError } from '../hogql/index.js';

type Flags = Record<string, string | boolean | undefined>;

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  stdin: () => string;
}

const processIO: CliIO = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stdin: () => readFileSync(0, 'utf8'),
};

export const HOG_USAGE = 'usage: hedgerow hog compile FILE|- | hedgerow hog run FILE|- [--globals FILE]';

function readGlobals(flags: Flags): Record<string, unknown> {
  if (typeof flags.globals !== 'string') return {};
  const parsed: unknown = JSON.parse(readFileSync(flags.globals, 'utf8'));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('--globals must hold a JSON object');
  return parsed as Record<string, unknown>;
}

/** Runs `hog <sub> <file>`; resolves with the exit status. */
export async function hogCommand(sub: string | undefined, file: string | undefined, flags: Flags, io: CliIO = processIO): Promise<number> {
  if ((sub !== 'compile' && sub !== 'run') || file === undefined) {
    io.stderr(`hedgerow: ${HOG_USAGE}\n`);
    return 2;
  }
  const source = file === '-' ? io.stdin() : readFileSync(file, 'utf8');
  const name = file === '-' ? '<stdin>' : file;
  const globals = sub === 'run' ? readGlobals(flags) : {};
  await loadHogParser();
  let compiled;
  try {
    compiled = compileProgram(source, { functions: DESTINATION_FUNCTIONS });
  } catch (err) {
    if (!(err instanceof SourceLimitError)) throw err;
    io.stderr(`${name}: the program ${err.message}\n`);
    return 1;
  }
  if (!compiled.ok) {
    const { line, column, message } = compiled.error;
    io.stderr(`${name}:${line ?? '?'}:${column ?? '?'}: ${message}\n`);
    return 1;
  }
  for (const w of compiled.warnings) io.stderr(`${name}:${w.line ?? '?'}:${w.column ?? '?'}: warning: ${w.message}\n`);
  if (sub === 'compile') {
    io.stdout(`${JSON.stringify(compiled.bytecode)}\n`);
    return 0;
  }
  const report = await execute(compiled.bytecode, globals, {
    print: (line) => io.stdout(`${line}\n`),
    postHogCapture: (event) => io.stderr(`postHogCapture: ${JSON.stringify(event)}\n`),
    fetch: cliFetch,
    asyncFunctions: { sleep: (seconds) => new Promise((resolve) => setTimeout(() => resolve(null), Number(seconds) * 1000)) },
  });
  if (report.error) {
    io.stderr(`${name}: ${errorText(report.error)}\n`);
    return 1;
  }
  return 0;
}
