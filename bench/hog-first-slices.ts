// The catalogue's first slices (issue 26): for each destination template, the ops and STL
// calls its first slice runs up to its first async call (read from the VM's telemetry, on a
// $pageview with an email and the inputs' defaults), whether src/hog/straight-slice.ts
// answers it, and for those it answers the CPU of one first slice straight against the VM's
// own run of it (exec, as the host runs it without the straight path), same process and run.
//   node dist/bench/hog-first-slices.js [--rounds 2000]
import { parseArgs } from 'node:util';
import { compileProgram, initHog } from '../src/hog/index.js';
import { exec, type ExecOptions } from '../src/hog/vm.js';
import { straightSlice } from '../src/hog/straight-slice.js';
import { Op } from '../src/hog/opcodes.js';
import { TEMPLATES } from '../src/destinations/templates/index.js';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '2000' } } });
const ROUNDS = Number(args.rounds);
const NAMES = Object.fromEntries(Object.entries(Op).map(([name, code]) => [String(code), name]));

await initHog();
const base = {
  event: { uuid: 'u', event: '$pageview', distinct_id: 'd', properties: { $current_url: 'https://example.com/', email: 'ann@example.com' }, timestamp: '2026-11-27T10:00:00.000Z', elements_chain: '', url: 'http://localhost/e' },
  person: { id: 'p', properties: { email: 'ann@example.com' }, name: 'ann@example.com', url: 'http://localhost/p' },
  groups: {}, project: { id: 1, name: 'Default', url: 'http://localhost' }, source: { name: 'f', url: 'http://localhost/f' },
};
const cpuMicros = (run: () => unknown): number => {
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ROUNDS;
};

const rows: string[] = [];
const uses = new Map<string, number>();
let templates = 0;
let straight = 0;
for (const template of TEMPLATES) {
  if (template.type !== 'destination') continue;
  const compiled = await compileProgram(template.code);
  if (!compiled.ok) continue;
  templates++;
  const bytecode = compiled.bytecode as unknown[];
  const inputs = Object.fromEntries((template.inputs_schema ?? []).map((i) => [i.key, i.default ?? `${i.key}-value`]));
  const options: ExecOptions = { globals: { ...base, inputs }, functions: {}, asyncFunctions: { fetch: () => Promise.resolve(null) }, timeout: 5000, maxAsyncSteps: 5 };
  const traced = exec(bytecode, { ...options, telemetry: true });
  const used = new Set<string>();
  for (const [, , , op, debug] of (traced.state?.telemetry ?? []).slice(1) as [unknown, unknown, unknown, string, string][]) {
    const name = NAMES[op.split('/')[0]] ?? op;
    used.add(name === 'CALL_GLOBAL' ? `${debug}()` : name);
  }
  for (const u of used) uses.set(u, (uses.get(u) ?? 0) + 1);
  const end = traced.finished ? (traced.error ? 'error' : 'finished') : `${traced.asyncFunctionName}()`;
  const answered = straightSlice(bytecode, options, () => true) !== null;
  let figures = '';
  if (answered) {
    straight++;
    const ours = cpuMicros(() => straightSlice(bytecode, options, () => true));
    const theirs = cpuMicros(() => exec(bytecode, options));
    figures = `${ours.toFixed(1)} | ${theirs.toFixed(1)} | ${(ours / theirs).toFixed(2)}`;
  } else figures = '| |';
  rows.push(`| ${template.id} | ${end} | ${(traced.state?.telemetry?.length ?? 1) - 1} | ${[...used].sort().join(', ')} | ${answered ? 'yes' : 'no'} | ${figures} |`);
}
console.log('| template | first slice ends at | ops | ops and calls in it | straight | µs straight | µs VM | ratio |');
console.log('|---|---|---:|---|---|---:|---:|---:|');
for (const row of rows) console.log(row);
console.log(`\nanswered straight: ${straight}/${templates}`);
console.log(`uses (templates): ${[...uses].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
