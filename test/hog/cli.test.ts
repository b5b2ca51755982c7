// `hedgerow hog compile` and `hedgerow hog run` as an operator runs them: a child process,
// a file or standard input, output on stdout, errors on stderr with exit status 1. What the
// process itself does (reading a file or standard input, --globals, the streams, the exit
// status, usage) is run in children; cases about what the command answers for a program
// (a compile error, a warning, an uncaught error, the bounds) call the command's function
// in this process where a child already ran the same path: a child costs ~0.5 s of CPU.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bytecodeOf, repoRoot } from './helpers.js';
import { hogCommand } from '../../src/hog/cli.js';

const MAIN = fileURLToPath(new URL('../../src/main.js', import.meta.url));
const corpus = (name: string) => join(repoRoot, 'test/hog/corpus', name);

function hedgerow(args: string[], stdin = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
  child.stdin.end(stdin);
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

// `hedgerow hog SUB FILE|-` through hogCommand, with standard input and the streams in memory.
async function inProcess([sub, file]: [string, string], stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await hogCommand(sub, file, {}, { stdout: (text) => { stdout += text; }, stderr: (text) => { stderr += text; }, stdin: () => stdin });
  return { code, stdout, stderr };
}

const cli = suite('hog CLI');
let dir: string;
cli.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'hedgerow-hog-cli-'));
});
cli.after(() => rmSync(dir, { recursive: true, force: true }));

cli('compile prints the bytecode as one JSON line', async () => {
  const r = await hedgerow(['hog', 'compile', corpus('closures.hog')]);
  assert.is(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), bytecodeOf(readFileSync(corpus('closures.hog'), 'utf8')));
  assert.is(r.stdout.split('\n').length, 2);
});

cli('run prints what print() prints, one line each', async () => {
  const r = await hedgerow(['hog', 'run', corpus('recursion.hog')]);
  assert.is(r.stdout, '610\n3628800\n');
  assert.is(r.code, 1, 'the corpus program ends calling a function declared too late');
  assert.is(r.stderr, `${corpus('recursion.hog')}:12:10: warning: Hog function \`isOdd\` is not implemented\n` +
    `${corpus('recursion.hog')}: HogVMException: Unsupported function call: isOdd\n`);
});

cli('- reads the program from standard input', async () => {
  const r = await hedgerow(['hog', 'run', '-'], "let x := [1, 2]\nprint(f'sum {x[1] + x[2]}', x)\n");
  assert.equal([r.code, r.stdout, r.stderr], [0, 'sum 3 [1, 2]\n', '']);
  const compiled = await inProcess(['compile', '-'], 'return 1 + 2');
  assert.equal(JSON.parse(compiled.stdout), ['_H', 1, 33, 2, 33, 1, 6, 38]);
});

cli('a compile error goes to stderr with its place; nothing on stdout', async () => {
  const child = await hedgerow(['hog', 'compile', '-'], 'let a := 1\nlet a := 2\n');
  assert.equal([child.code, child.stdout, child.stderr], [1, '', '<stdin>:2:1: Variable `a` already declared in this scope\n']);
  const run = await inProcess(['run', '-'], 'let a := 1\nlet a := 2\n');
  assert.equal([run.code, run.stdout, run.stderr], [1, '', '<stdin>:2:1: Variable `a` already declared in this scope\n']);
});

cli('an uncaught error ends run with status 1 after the lines printed before it', async () => {
  const r = await inProcess(['run', corpus('uncaught.hog')]);
  assert.equal([r.code, r.stdout], [1, 'before\n']);
  assert.match(r.stderr, /: RetryError\('give up'\)\n$/);
});

cli('unknown functions are warned about on compile, and fail at run time', async () => {
  const r = await inProcess(['compile', '-'], 'nope(1)');
  assert.is(r.code, 0);
  assert.is(r.stderr, '<stdin>:1:1: warning: Hog function `nope` is not implemented\n');
});

cli('--globals gives run its globals; fetch makes the request and returns status and JSON body', async () => {
  const received: { method?: string; url?: string; type?: string; body: string }[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, type: req.headers['content-type'], body });
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const globals = join(dir, 'globals.json');
    writeFileSync(globals, JSON.stringify({ event: { event: 'signup' }, inputs: { url: `http://127.0.0.1:${port}/hook` } }));
    const program = "let r := fetch(inputs.url, {'body': {'event': event.event}})\nprint(r.status, r.body.ok)";
    const r = await hedgerow(['hog', 'run', '-', '--globals', globals], program);
    assert.equal([r.code, r.stdout, r.stderr], [0, '201 true\n', '']);
    assert.equal(received, [{ method: 'POST', url: '/hook', type: 'application/json', body: '{"event":"signup"}' }]);
  } finally {
    server.close();
  }
});

cli('usage errors exit 2', async () => {
  const r = await hedgerow(['hog', 'transpile', 'x.hog']);
  assert.is(r.code, 2);
  assert.match(r.stderr, /usage: hedgerow hog compile FILE\|-/);
});

cli('run keeps the program in its memory bound: range(100000000) fails with the VM\'s memory error, and a source nested past the parser\'s bound is refused', async () => {
  // The same program in a `hog run` child: test/events/hostile-code-and-queries.
  const r = await inProcess(['run', '-'], "print('before')\nreturn length(range(100000000))");
  assert.equal([r.code, r.stdout], [1, 'before\n']);
  assert.is(r.stderr, '<stdin>: HogVMException: Memory limit of 67108864 bytes exceeded. Tried to allocate 800000008 bytes.\n');
  const deep = await inProcess(['run', '-'], `return ${'('.repeat(400)}1${')'.repeat(400)}`);
  assert.equal([deep.code, deep.stderr], [1, '<stdin>: the program nests parentheses, brackets and braces 400 levels deep; at most 32 are accepted\n']);
});

cli.run();
