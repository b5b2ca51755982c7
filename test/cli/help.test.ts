// `hedgerow` alone, --help, --version, each command's own --help, and the refusals of a
// command line that is not one: an unknown command, a flag the command does not take, a
// missing or extra argument (usage on stderr, exit 2).
import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hedgerow } from './helpers.js';
import { readArgv, UsageError } from '../../src/cli/argv.js';
import { commandTable } from '../../src/cli/main.js';
import { MODULES } from '../../src/main.js';

const COMMANDS = commandTable(MODULES);

const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
const flagsIn = (text: string) => [...text.matchAll(/^ {2}(--[a-z-]+)/gm)].map((m) => m[1]);

const s = suite('CLI: usage, help, version');

s('`hedgerow` alone and `hedgerow --help` print every command on stdout and exit 0', () => {
  for (const args of [[], ['--help'], ['-h']]) {
    const r = hedgerow(args);
    assert.is(r.code, 0, args.join(' '));
    assert.is(r.stderr, '');
    assert.match(r.stdout, /^usage: hedgerow <command> \[options\]\n/);
    for (const c of COMMANDS) assert.match(r.stdout, `\n  ${c.path.join(' ')} `);
  }
});

s('--version and -v print the package version and exit 0', () => {
  for (const flag of ['--version', '-v']) {
    const r = hedgerow([flag]);
    assert.is(r.code, 0);
    assert.is(r.stdout, `hedgerow ${pkg.version}\n`);
  }
});

s('each command\'s --help lists its own flags only, settings with their variable and default', () => {
  const serve = hedgerow(['serve', '--help']);
  assert.is(serve.code, 0);
  assert.match(serve.stdout, /^usage: hedgerow serve \[--port N\] \[--host H\] \[--data DIR\]/);
  assert.equal(flagsIn(serve.stdout), ['--port', '--host', '--data', '--nats', '--log-level', '--geoip-db', '--flag-workers']);
  assert.match(serve.stdout, /\n {2}-h, --help +this help\n/);
  assert.match(serve.stdout, /--port N +port to listen on \(0: any free port\) \(env PORT; default 8000\)/);

  const key = hedgerow(['key', 'create', '--help']);
  assert.is(key.code, 0);
  assert.match(key.stdout, /^usage: hedgerow key create --email E --scopes a:read,b:write\|\* \[--projects 1,2\] \[--label L\] \[--json\]/);
  assert.equal(flagsIn(key.stdout), ['--email', '--scopes', '--projects', '--label', '--json', '--data', '--nats']);

  const hog = hedgerow(['hog', 'run', '--help']);
  assert.match(hog.stdout, /^usage: hedgerow hog run FILE\|- \[--globals FILE\]\n/);
  assert.equal(flagsIn(hog.stdout), ['--globals']);

  const config = hedgerow(['config', '-h']);
  assert.is(config.code, 0);
  assert.equal(flagsIn(config.stdout), ['--json', '--port', '--host', '--data', '--nats', '--log-level', '--geoip-db', '--flag-workers']);
});

s('a group\'s first word alone lists its commands (exit 0)', () => {
  const r = hedgerow(['key']);
  assert.is(r.code, 0);
  assert.match(r.stdout, /^usage: hedgerow key create .*\n {7}hedgerow key list .*\n {7}hedgerow key revoke --id ID/);
});

s.run();

const refused = suite('CLI: refused command lines');

refused('a flag the command does not take is refused, naming the command (exit 2)', () => {
  for (const [args, said] of [
    [['serve', '--email', 'x'], 'serve does not take --email'],
    [['key', 'create', '--port', '5'], 'key create does not take --port'],
    [['hog', 'compile', 'f.hog', '--data', 'd'], 'hog compile does not take --data'],
    [['init', '--frobnicate'], 'init does not take --frobnicate'],
  ] as const) {
    const r = hedgerow([...args]);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stdout, '');
    assert.is(r.stderr.split('\n')[0], `hedgerow: ${said}`);
    assert.match(r.stderr, `\`hedgerow ${args[0] === 'serve' || args[0] === 'init' ? args[0] : `${args[0]} ${args[1]}`} --help\` lists its options`);
  }
});

refused('an unknown command prints the usage on stderr (exit 2)', () => {
  const r = hedgerow(['frobnicate']);
  assert.is(r.code, 2);
  assert.is(r.stdout, '');
  assert.match(r.stderr, /^hedgerow: unknown command "frobnicate"\nusage: hedgerow <command> \[options\]/);
  const sub = hedgerow(['key', 'destroy']);
  assert.is(sub.code, 2);
  assert.match(sub.stderr, /^hedgerow: unknown command "key destroy"\nusage: hedgerow key create/);
});

refused('a missing or extra argument, a flag without its value, a value for a switch (exit 2)', () => {
  const cases: [string[], string][] = [
    [['hog', 'run'], 'hog run needs FILE|-'],
    [['hog', 'compile', 'a.hog', 'b.hog'], 'hog compile does not take "b.hog"'],
    [['serve', 'now'], 'serve does not take "now"'],
    [['serve', '--port'], '--port needs a value (N)'],
    [['init', '--json=yes'], '--json takes no value'],
    [['--port', '8000'], '--port comes after a command'],
  ];
  for (const [args, said] of cases) {
    const r = hedgerow(args);
    assert.is(r.code, 2, args.join(' '));
    assert.is(r.stderr.split('\n')[0], `hedgerow: ${said}`);
  }
});

refused('a setting out of bounds: one line naming the variable and the bound, not the usage (exit 2)', () => {
  const r = hedgerow(['serve'], { HEDGEROW_MAX_EVENT_BYTES: '5' });
  assert.is(r.code, 2);
  assert.is(r.stderr, 'hedgerow: HEDGEROW_MAX_EVENT_BYTES must be at least 1024 (got 5)\n');
  // A command that reads no setting is not stopped by one.
  const hog = hedgerow(['hog', 'compile', '-'], { HEDGEROW_MAX_EVENT_BYTES: '5' });
  assert.is(hog.code, 0, hog.stderr);
});

refused.run();

const argv = suite('CLI: the command line read against the command table');

argv('words, then flags and arguments in any order; --help anywhere after the command', () => {
  const run = readArgv(['hog', 'run', '--globals', 'g.json', 'p.hog'], COMMANDS);
  assert.is(run.kind, 'run');
  if (run.kind !== 'run') return;
  assert.equal([run.entry.path, run.args, run.flags], [['hog', 'run'], ['p.hog'], { globals: 'g.json' }]);
  const key = readArgv(['key', 'create', '--email', 'a@b.c', '--json', '--data', '/d', '--scopes', '*'], COMMANDS);
  assert.equal(key.kind === 'run' && key.flags, { email: 'a@b.c', json: true, data: '/d', scopes: '*' });
  const help = readArgv(['key', 'create', '--email', 'x', '--help'], COMMANDS);
  assert.equal(help.kind === 'help' && help.entry.path, ['key', 'create']);
  assert.throws(() => readArgv(['serve', '--email', 'x', '--port', '1'], COMMANDS), (err: unknown) => err instanceof UsageError && err.message === 'serve does not take --email');
});

argv('every command names only settings that have a flag; no flag is both its own and a setting\'s', () => {
  for (const c of COMMANDS) {
    const r = hedgerow([...c.path, '--help']);
    assert.is(r.code, 0, `${c.path.join(' ')}: ${r.stderr}`);
    const flags = flagsIn(r.stdout);
    assert.is(new Set(flags).size, flags.length, c.path.join(' '));
  }
});

argv.run();
