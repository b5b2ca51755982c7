// The runtime host: bounds (time, memory, async steps), async suspension and resumption,
// host functions from the caller, what the report carries, and the same host in a
// Piscina worker.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { errorText, execute } from '../../src/hog/index.js';
import type { FetchOptions } from '../../src/hog/index.js';
import { createWorkerPool } from '../../src/pools/index.js';
import type { HogTasks } from '../fixtures/hog-worker.js';
import { bytecodeOf } from './helpers.js';

const run = (source: string, globals: Record<string, unknown> = {}, options: Parameters<typeof execute>[2] = {}) =>
  execute(bytecodeOf(source), globals, options);

const bounds = suite('hog host: bounds');

bounds('a program over its time budget stops with the VM timeout', async () => {
  // How soon after its budget is measured by bench/latencies.js (hog-timeout).
  const report = await run('while (true) { }', {}, { timeoutMs: 50 });
  assert.match(report.error?.message ?? '', /^Execution timed out after 0.05 seconds/);
  assert.is(report.error?.thrown, false);
});

bounds('time spent awaiting an async call does not count against the budget', async () => {
  const report = await run("fetch('https://slow'); return 'done'", {}, {
    timeoutMs: 100,
    fetch: () => new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: null }), 250)),
  });
  assert.is(report.error, null);
  assert.is(report.result, 'done');
});

bounds('memory is bounded by the VM estimate of its stack', async () => {
  const report = await run("let s := 'x'; while (true) { s := s || s }", {}, { memoryLimit: 1024 * 1024 });
  assert.match(report.error?.message ?? '', /^Memory limit of 1048576 bytes exceeded/);
  assert.ok(report.maxMemoryBytes > 500_000);
});

bounds('async calls beyond maxAsyncSteps fail the program', async () => {
  let calls = 0;
  const report = await run("fetch('a'); fetch('b'); fetch('c')", {}, {
    maxAsyncSteps: 2,
    fetch: async () => ({ status: 200, body: ++calls }),
  });
  assert.is(calls, 2);
  assert.is(errorText(report.error!), 'HogVMException: Exceeded maximum number of async steps: 2');
});

bounds('regexes are RE2: a pattern that backtracks exponentially elsewhere answers at once', async () => {
  // Backtracking would take hours here: the 1 s budget would stop it with an error instead
  // of the answer. How long RE2 takes is measured by bench/latencies.js (hog-re2).
  const report = await run(`return '${'a'.repeat(40)}!' =~ '^(a+)+$'`, {}, { timeoutMs: 1000 });
  assert.is(report.error, null);
  assert.is(report.result, false);
});

const host = suite('hog host: host functions and the report');

host('fetch suspends the program and resumes it with the response as a dictionary', async () => {
  const seen: [string, FetchOptions | null][] = [];
  const report = await run(
    "let r := fetch('https://api.example/x', {'method': 'PUT', 'headers': {'a': 'b'}, 'body': {'n': [1]}}); return [r.status, r.body.ok]",
    {},
    { fetch: async (url, options) => { seen.push([url, options]); return { status: 202, body: { ok: true } }; } },
  );
  assert.equal(seen, [['https://api.example/x', { method: 'PUT', headers: { a: 'b' }, body: { n: [1] } }]]);
  assert.equal(report.result, [202, true]);
  assert.is(report.asyncSteps, 1);
  assert.equal(report.timings.map((t) => t.kind), ['hog', 'async_function', 'hog']);
});

host('fetch without options passes null; a rejected fetch fails the program with its message', async () => {
  let options: unknown = 'unset';
  await run("fetch('u')", {}, { fetch: async (_url, o) => { options = o; return { status: 200, body: null }; } });
  assert.is(options, null);
  const report = await run("fetch('u')", {}, { fetch: async () => { throw new Error('connection refused'); } });
  assert.equal(report.error, { type: 'Error', message: 'connection refused', payload: null, thrown: false });
});

host('an async function the caller did not supply is refused', async () => {
  const report = await run('sleep(0.01)');
  assert.is(errorText(report.error!), 'HogVMException: Unsupported async function call: sleep');
  const slept = await run("sleep(0.01); return 'woke'", {}, { asyncFunctions: { sleep: async () => null } });
  assert.is(slept.result, 'woke');
});

host('print lines are streamed to the caller and kept in the report', async () => {
  const streamed: string[] = [];
  const report = await run("print('a', 1, {'k': (1, 2)}); print(); return 2", {}, { print: (line) => streamed.push(line) });
  assert.equal(streamed, ["a 1 {'k': (1, 2)}", '']);
  assert.equal(report.logs, streamed);
  assert.is(report.result, 2);
});

host('postHogCapture and other host functions receive plain JS values', async () => {
  const captured: unknown[] = [];
  const report = await run("postHogCapture({'event': 'e', 'properties': {'list': [1, (2, 3)]}}); return double(21)", {}, {
    postHogCapture: (event) => captured.push(event),
    functions: { double: (n) => (n as number) * 2 },
  });
  assert.equal(captured, [{ event: 'e', properties: { list: [1, [2, 3]] } }]);
  assert.is(report.result, 42);
});

host('the result is plain JS; errors the program throws keep their type and payload', async () => {
  assert.equal((await run("return {'a': [1, {'b': null}]}")).result, { a: [1, { b: null }] });
  const thrown = await run("throw RetryError('later', {'after': 5})");
  assert.equal(thrown.error, { type: 'RetryError', message: 'later', payload: { after: 5 }, thrown: true });
  assert.is(errorText(thrown.error!), "RetryError('later')");
  assert.is(thrown.result, null);
});

host('globals are read as given; bytecode without a header is refused, not thrown', async () => {
  assert.is((await run('return event.properties.n + 1', { event: { properties: { n: 41 } } })).result, 42);
  const report = await execute([33, 1], {});
  assert.is(report.error?.message, "Invalid HogQL bytecode, must start with '_H'");
});

host('programs awaiting fetch at the same time keep their own output', async () => {
  const slow = (ms: number) => async () => new Promise<{ status: number; body: unknown }>(
    (resolve) => setTimeout(() => resolve({ status: 200, body: ms }), ms));
  const source = (name: string) => `print('${name} start'); let r := fetch('x'); print('${name} got', r.body); return r.body`;
  const [a, b] = await Promise.all([
    run(source('a'), {}, { fetch: slow(40) }),
    run(source('b'), {}, { fetch: slow(5) }),
  ]);
  assert.equal(a.logs, ['a start', 'a got 40']);
  assert.equal(b.logs, ['b start', 'b got 5']);
});

const worker = suite('hog host: in a Piscina worker');

worker('a worker thread runs bytecode with the same host, fetch and all', async () => {
  const pool = createWorkerPool<HogTasks>({ worker: new URL('../fixtures/hog-worker.js', import.meta.url), threads: 1, workerData: undefined });
  try {
    const report = await pool.run('run', {
      bytecode: bytecodeOf("print('in worker', event); let r := fetch('https://x.example'); return r"),
      globals: { event: 'signup' },
    });
    assert.equal(report.logs, ['in worker signup']);
    assert.equal(report.result, { status: 201, body: { url: 'https://x.example', method: 'POST' } });
  } finally {
    await pool.close();
  }
});

for (const s of [bounds, host, worker]) s.run();
