#!/usr/bin/env node
// Runs the Dockerfile's steps without a Docker engine, as written: each stage is a
// scratch directory standing for its WORKDIR; COPY copies from the repository or from an
// earlier stage; the RUN lines of build stages run there with sh. The last stage's RUN
// lines set up the image's system paths (/data, its owner) and are only listed. Then the
// last stage's ENTRYPOINT + CMD, with its ENV, must serve: readiness, a capture, a clean
// stop on SIGTERM. Exits non-zero with the failing step's output otherwise.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'hedgerow-dockerfile-'));
const started = Date.now();
const say = (line) => process.stdout.write(`dockerfile: ${line}\n`);

function fail(message, output = '') {
  if (output) process.stdout.write(output.split('\n').slice(-40).join('\n') + '\n');
  say(`FAILED: ${message}`);
  rmSync(scratch, { recursive: true, force: true });
  process.exit(1);
}

// Instructions with their continuation lines joined; comments and blank lines dropped.
function instructions(text) {
  const out = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) { pending += line.slice(0, -1) + ' '; continue; }
    const full = pending + line;
    pending = '';
    const space = full.indexOf(' ');
    out.push({ op: full.slice(0, space).toUpperCase(), args: full.slice(space + 1).trim() });
  }
  return out;
}

const stages = [];
for (const ins of instructions(readFileSync(join(repo, 'Dockerfile'), 'utf8'))) {
  if (ins.op === 'FROM') {
    const name = /\s+AS\s+(\S+)$/i.exec(ins.args)?.[1] ?? String(stages.length);
    stages.push({ name, from: ins.args.split(/\s+/)[0], dir: join(scratch, name), workdir: '/', steps: [] });
    mkdirSync(join(scratch, name), { recursive: true });
  } else if (stages.length === 0) {
    fail(`${ins.op} before FROM`);
  } else {
    stages.at(-1).steps.push(ins);
  }
}
const last = stages.at(-1);
const env = {};
let entrypoint = [];
let cmd = [];

// A path inside a stage's image, mapped into its scratch directory (WORKDIR is its root).
function inStage(stage, path) {
  const absolute = path.startsWith('/') ? path : join(stage.workdir, path);
  const rel = absolute.startsWith(stage.workdir) ? absolute.slice(stage.workdir.length) : null;
  if (rel === null) fail(`${path} is outside WORKDIR ${stage.workdir} of stage ${stage.name}`);
  return join(stage.dir, rel);
}

function copy(stage, args) {
  const parts = args.split(/\s+/);
  const fromFlag = parts[0].startsWith('--from=') ? parts.shift().slice('--from='.length) : null;
  const dest = parts.pop();
  const source = fromFlag === null ? null : stages.find((s) => s.name === fromFlag);
  if (fromFlag !== null && !source) fail(`COPY --from=${fromFlag}: no such stage`);
  for (const src of parts) {
    const from = source ? inStage(source, src) : join(repo, src);
    try { statSync(from); } catch { fail(`COPY ${args}: ${src} does not exist`); }
    const isDir = statSync(from).isDirectory();
    const to = dest.endsWith('/') && !isDir ? join(inStage(stage, dest), basename(src)) : inStage(stage, dest);
    if (source && isDir) {
      // Between stages, hard links: the same files, without copying hundreds of MB.
      mkdirSync(to, { recursive: true });
      const r = spawnSync('cp', ['-al', `${from}/.`, to], { encoding: 'utf8' });
      if (r.status !== 0) fail(`COPY ${args}: cp exited ${r.status}`, r.stderr);
    } else {
      cpSync(from, to, { recursive: true, dereference: false });
    }
  }
}

for (const stage of stages) {
  say(`stage ${stage.name} (FROM ${stage.from})`);
  for (const { op, args } of stage.steps) {
    if (op === 'WORKDIR') {
      stage.workdir = args.endsWith('/') ? args : `${args}/`;
    } else if (op === 'COPY') {
      copy(stage, args);
    } else if (op === 'RUN' && stage !== last) {
      const t0 = Date.now();
      const r = spawnSync('sh', ['-c', args], { cwd: stage.dir, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
      if (r.status !== 0) fail(`RUN ${args} exited ${r.status}`, `${r.stdout}\n${r.stderr}`);
      say(`RUN ${args}: ok in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    } else if (op === 'RUN') {
      say(`RUN ${args}: not run (image system setup)`);
    } else if (op === 'ENV' && stage === last) {
      for (const m of args.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]] = m[2].replace(/^"|"$/g, '');
    } else if (op === 'ENTRYPOINT' && stage === last) {
      entrypoint = JSON.parse(args);
    } else if (op === 'CMD' && stage === last) {
      cmd = JSON.parse(args);
    } else if (!['ENV', 'ENTRYPOINT', 'CMD', 'VOLUME', 'EXPOSE', 'USER'].includes(op)) {
      fail(`${op} is not understood by this script; teach it`);
    }
  }
}

function freePort() {
  return new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); });
  });
}

async function waitFor(check, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    try { if (await check()) return true; } catch { /* not up yet */ }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 200));
  }
}

// The image's command, in the final stage's directory, with its ENV and a temporary data
// directory and port in place of /data and 8000.
const [program, ...args] = [...entrypoint, ...cmd];
if (program !== 'node') fail(`ENTRYPOINT ${JSON.stringify(entrypoint)}: expected node`);
const help = spawnSync(process.execPath, [args[0], '--help'], { cwd: last.dir, encoding: 'utf8' });
if (help.status !== 0 || !help.stdout.includes('usage: hedgerow')) fail(`${args[0]} --help exited ${help.status}`, help.stdout + help.stderr);

const port = await freePort();
const data = join(scratch, 'data');
let output = '';
const server = spawn(process.execPath, args, {
  cwd: last.dir,
  env: { ...process.env, ...env, HEDGEROW_DATA: data, PORT: String(port), HOST: '127.0.0.1' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
server.stdout.on('data', (d) => { output += d; });
server.stderr.on('data', (d) => { output += d; });
const exited = new Promise((res) => server.on('exit', (code, signal) => res({ code, signal })));
const base = `http://127.0.0.1:${port}`;
if (!(await waitFor(async () => (await fetch(`${base}/_readiness`)).status === 200, 60_000))) {
  server.kill('SIGKILL');
  fail(`${[program, ...args].join(' ')} did not become ready`, output);
}
const key = /project API key:\s+(phc_\S+)/.exec(output)?.[1];
if (!key) { server.kill('SIGKILL'); fail('no project API key printed at first start', output); }
const capture = await fetch(`${base}/i/v0/e/`, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ api_key: key, event: 'dockerfile check', distinct_id: 'ci' }),
});
if (capture.status !== 200) { server.kill('SIGKILL'); fail(`capture answered ${capture.status}`, output); }
server.kill('SIGTERM');
const stop = await Promise.race([exited, new Promise((res) => setTimeout(() => res(null), 20_000).unref())]);
if (!stop || stop.code !== 0) { server.kill('SIGKILL'); fail(`SIGTERM: ${stop ? `exit ${stop.code} ${stop.signal ?? ''}` : 'still running after 20 s'}`, output); }
say(`${[program, ...args].join(' ')}: ready, captured, stopped cleanly`);
rmSync(scratch, { recursive: true, force: true });
say(`all steps passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(0);
