// Each command loads only what it uses: --help, `hog`, `key` and `config` never load the
// service (src/node/, which starts every module: DuckDB, uWebSockets.js, NATS, Piscina).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { hedgerow } from './helpers.js';

const HOOK = new URL('../helpers/import-log.js', import.meta.url).href;
const REGISTER = `data:text/javascript,import { register } from "node:module"; register(${JSON.stringify(HOOK)});`;

// The modules a command line resolved, and how it ended.
function loaded(args: string[]): { modules: string[]; code: number | null; stderr: string } {
  const r = hedgerow(args, {}, ['--import', REGISTER]);
  const modules = [...r.stderr.matchAll(/^resolved (.+)$/gm)].map((m) => m[1]);
  return { modules, code: r.code, stderr: r.stderr.replace(/^resolved .+\n/gm, '') };
}

const SERVICE = [/\/dist\/src\/node\//, /node_modules\/@duckdb\//, /node_modules\/uWebSockets\.js\//, /node_modules\/nats\//, /node_modules\/piscina\//];
const heavy = (modules: string[]) => modules.filter((m) => SERVICE.some((re) => re.test(m)));

const s = suite('CLI: each command loads what it uses');
let dir: string;
s.before(() => { dir = mkdtempSync(join(tmpdir(), 'hedgerow-lazy-')); });
s.after(() => rmSync(dir, { recursive: true, force: true }));

s('the hook sees what a process loads (serve --help loads the CLI, not the service)', () => {
  const help = loaded(['serve', '--help']);
  assert.is(help.code, 0);
  assert.ok(help.modules.some((m) => m.endsWith('/dist/src/main.js')), 'the hook reported the entry');
  assert.equal(heavy(help.modules), []);
});

s('--help, --version, config and hog run load no part of the service', () => {
  for (const args of [['--help'], ['--version'], ['config'], ['key', 'create', '--help'], ['hog', 'compile', '-']]) {
    const r = loaded(args);
    assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.equal(heavy(r.modules), [], args.join(' '));
  }
});

s('init and key, embedded, load the store and access but not the service', () => {
  const data = join(dir, 'data');
  const init = loaded(['init', '--json', '--data', data]);
  assert.is(init.code, 0, init.stderr);
  assert.ok(init.modules.some((m) => /node_modules\/lmdb\//.test(m)), 'init opened LMDB');
  assert.equal(heavy(init.modules), []);
  const list = loaded(['key', 'list', '--data', data]);
  assert.is(list.code, 0, list.stderr);
  assert.equal(heavy(list.modules), []);
});

s.run();
