// Shared by the Hog suites: the parser loaded once, the corpus's globals and host stubs.

import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compileProgram, initHog } from '../../src/hog/index.js';
import type { Bytecode } from '../../src/hog/index.js';
import { errorText, execute, type ExecuteOptions, type FetchOptions } from '../../src/hog/host.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

await initHog();

/** The globals every corpus program sees: an event as a destination receives it. */
export const corpusGlobals = {
  event: {
    uuid: 'e-1', event: '$pageview', distinct_id: 'user-1', timestamp: '2026-11-25T10:00:00Z', elements_chain: '',
    properties: { $current_url: 'https://example.com/docs', $browser: 'Firefox', plan: 'pro', count: 3, tags: ['a', 'b'] },
  },
  person: { id: 'p-1', properties: { email: 'ada@example.com', name: 'Ada' } },
  inputs: { url: 'https://hooks.example.com/in', token: 'secret' },
  project: { id: 1, name: 'Default' },
};

/** A fetch that answers from memory: 500 for URLs containing "fail", else 200 echoing the request. */
export async function echoFetch(url: string, options: FetchOptions | null) {
  return {
    status: url.includes('fail') ? 500 : 200,
    body: { url, method: options?.method ?? 'POST', body: options?.body ?? null },
  };
}

/** Compiles and runs a program as the corpus does; returns its output lines (prints, then any error). */
export async function runForOutput(source: string, options: ExecuteOptions = {}): Promise<string[]> {
  const compiled = compileProgram(source, { functions: ['fetch', 'postHogCapture'] });
  if (!compiled.ok) {
    const { line, column, message } = compiled.error;
    return [`compile error: ${line}:${column} ${message}`];
  }
  const out: string[] = [];
  const report = await execute(compiled.bytecode, corpusGlobals, {
    timeoutMs: 1000,
    maxAsyncSteps: 5,
    print: (line) => out.push(line),
    postHogCapture: (event) => out.push(`captured ${JSON.stringify(event)}`),
    fetch: echoFetch,
    ...options,
  });
  if (report.error) out.push(`error: ${errorText(report.error)}`);
  return out.join('\n').split('\n');
}

/** Bytecode of a program that must compile. */
export function bytecodeOf(source: string): Bytecode {
  const compiled = compileProgram(source);
  if (!compiled.ok) throw new Error(`does not compile: ${compiled.error.message}`);
  return compiled.bytecode;
}
