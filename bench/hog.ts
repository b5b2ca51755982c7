// Hog micro benchmark: compile throughput (a webhook function's source, its inputs, its
// filters) against the parser alone, and execution of one webhook invocation (inputs
// rendered from templates, a dict built, fetch answered by a stub) through hedgerow's host
// against @posthog/hogvm's own execAsync running the same bytecode. Baselines run in the
// same process and run, so the ratios hold on a loaded machine.
//   node dist/bench/hog.js [--time 1000] [--record]
// --record appends a dated section to bench/RESULTS.md.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { Bench } from 'tinybench';
import {
  compileFilters, compileProgram, compileTemplateInputs, evaluateInputs, execute, initHog,
} from '../src/hog/index.js';
import type { Bytecode, CompiledInput, FetchOptions } from '../src/hog/index.js';
// Internals, to time hedgerow's compiler apart from the parser.
import { compileTree } from '../src/hog/compiler/compile.js';
import { parseProgram } from '../src/hog/parser.js';

const { values: args } = parseArgs({ options: { time: { type: 'string', default: '1000' }, record: { type: 'boolean', default: false } } });
const TIME_MS = Number(args.time);

await initHog();
const require = createRequire(import.meta.url);
const hogvm = require('@posthog/hogvm') as typeof import('@posthog/hogvm');
const parser = await (await import('@posthog/hogql-parser')).default();

// The webhook destination, in the shape of PostHog's template.
const WEBHOOK = `
let payload := {
  'headers': inputs.headers,
  'body': inputs.body,
  'method': inputs.method
}
if (inputs.debug) {
  print('Request', inputs.url, payload)
}
let res := fetch(inputs.url, payload)
if (res.status >= 400) {
  throw Error(f'Webhook failed with status {res.status}: {res.body}')
}
if (inputs.debug) {
  print('Response', res.status, res.body)
}
`;
const SCHEMA = [
  { key: 'url', type: 'string', required: true },
  { key: 'method', type: 'choice', default: 'POST' },
  { key: 'body', type: 'json' },
  { key: 'headers', type: 'dictionary' },
  { key: 'debug', type: 'boolean' },
];
const INPUTS = {
  url: { value: 'https://hooks.example.com/{project.id}/events' },
  method: { value: 'POST' },
  body: { value: { event: '{event}', person: '{person}', name: '{event.event}', url: '{event.properties.$current_url}', plan: '{person.properties.plan ?? \'free\'}' } },
  headers: { value: { 'Content-Type': 'application/json', Authorization: 'Bearer {inputs.method}-token' } },
  debug: { value: false },
};
const FILTERS = {
  events: [{ id: '$pageview', type: 'events', properties: [{ key: '$current_url', value: 'docs', operator: 'icontains', type: 'event' }] }],
  properties: [{ key: 'plan', value: ['pro', 'team'], operator: 'exact', type: 'person' }],
  filter_test_accounts: true,
};
const FILTER_CONTEXT = { now: Date.now(), testAccountFilters: [{ key: 'email', value: '@example.com', operator: 'not_icontains', type: 'person' }] };

const globals = {
  project: { id: 1, name: 'Default', url: 'https://hedgerow.example/project/1' },
  event: {
    uuid: '0193a7a0-0000-7000-8000-000000000001', event: '$pageview', distinct_id: 'user-1',
    timestamp: '2026-11-25T10:00:00Z', elements_chain: '', url: 'https://hedgerow.example/project/1/events/x',
    properties: { $current_url: 'https://example.com/docs/a', $browser: 'Firefox', $lib: 'web', count: 3 },
  },
  person: { id: 'p-1', name: 'ada@example.org', url: 'https://hedgerow.example/person/user-1', properties: { email: 'ada@example.org', plan: 'pro' } },
};
const fetchStub = async (url: string, options: FetchOptions | null) => ({ status: 200, body: { ok: true, url, bytes: JSON.stringify(options?.body ?? null).length } });

const program = compileProgram(WEBHOOK, { functions: ['fetch'] });
if (!program.ok) throw new Error(program.error.message);
const inputs = compileTemplateInputs(SCHEMA, INPUTS);
if (!inputs.ok) throw new Error(JSON.stringify(inputs.errors));
const compiledInputs: Record<string, CompiledInput> = inputs.inputs;
const bytecode: Bytecode = program.bytecode;

async function invocation(): Promise<unknown> {
  const rendered = await evaluateInputs(compiledInputs, globals);
  if (!rendered.ok) throw new Error(rendered.message);
  const report = await execute(bytecode, { ...globals, inputs: rendered.inputs }, { fetch: fetchStub, timeoutMs: 1000, maxAsyncSteps: 5 });
  if (report.error) throw new Error(report.error.message);
  return report.result;
}

// The VM alone: inputs already rendered, fetch through its own execAsync loop.
const renderedOnce = await evaluateInputs(compiledInputs, globals);
if (!renderedOnce.ok) throw new Error(renderedOnce.message);
const vmGlobals = { ...globals, inputs: renderedOnce.inputs };
const vmOptions = {
  globals: vmGlobals, timeout: 1000, maxAsyncSteps: 5, asyncFunctions: { fetch: fetchStub as (...a: unknown[]) => Promise<unknown> },
  external: { regex: { match: (r: string, v: string) => new RegExp(r).test(v) } },
};
const hostOnly = async () => {
  const report = await execute(bytecode, vmGlobals, { fetch: fetchStub, timeoutMs: 1000, maxAsyncSteps: 5 });
  if (report.error) throw new Error(report.error.message);
  return report;
};

// Same behaviour first: the host and the bare VM must agree on what the function did.
const viaHost = await hostOnly();
const viaVm = await hogvm.execAsync(bytecode, vmOptions);
if (JSON.stringify(viaHost.result) !== JSON.stringify(hogvm.convertHogToJS(viaVm.result))) throw new Error('host and VM disagree');
if (JSON.stringify(renderedOnce.inputs.body) !== JSON.stringify({
  event: globals.event, person: globals.person, name: '$pageview', url: 'https://example.com/docs/a', plan: 'pro',
})) throw new Error(`inputs rendered wrongly: ${JSON.stringify(renderedOnce.inputs.body)}`);
console.log('host and VM agree; inputs render as expected');

const parsedWebhook = parseProgram(WEBHOOK);
const bench = new Bench({ time: TIME_MS, warmupTime: 200 });
bench
  .add('parse only (WASM parser + JSON.parse): webhook source', () => JSON.parse(parser.parseProgram(WEBHOOK, false)))
  .add('compileProgram: webhook source', () => compileProgram(WEBHOOK, { functions: ['fetch'] }))
  .add('compiler alone (parsed tree → bytecode): webhook source', () => compileTree(parsedWebhook, WEBHOOK))
  .add('compileTemplateInputs: 5 inputs, 9 templates', () => compileTemplateInputs(SCHEMA, INPUTS))
  .add('compileFilters: event, properties, test accounts', () => compileFilters(FILTERS, FILTER_CONTEXT))
  .add('VM alone (execAsync): webhook, inputs rendered', () => hogvm.execAsync(bytecode, vmOptions))
  .add('host (execute): webhook, inputs rendered', hostOnly)
  .add('host: full invocation (render inputs + execute)', invocation);
await bench.run();

const perSecond = (name: string) => bench.getTask(name)?.result?.throughput.mean ?? NaN;
const rows = bench.tasks.map((t) => ({ name: t.name, ops: perSecond(t.name), p99: (t.result?.latency.p99 ?? NaN) * 1000 }));
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const table = [
  '| task | ops/s | p99 µs |',
  '|---|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.ops)} | ${fmt(r.p99)} |`),
].join('\n');
const ratio = (a: string, b: string) => (perSecond(a) / perSecond(b)).toFixed(2);
const ratios = [
  `compile ÷ parse alone: ${ratio('compileProgram: webhook source', 'parse only (WASM parser + JSON.parse): webhook source')}`,
  `compiler alone ÷ parse alone: ${ratio('compiler alone (parsed tree → bytecode): webhook source', 'parse only (WASM parser + JSON.parse): webhook source')}`,
  `host ÷ VM alone (same bytecode, same stub): ${ratio('host (execute): webhook, inputs rendered', 'VM alone (execAsync): webhook, inputs rendered')}`,
].join('; ');
console.log(`\n${table}\n\n${ratios}\n`);

if (args.record) {
  const file = join(process.cwd(), 'bench', 'RESULTS.md');
  appendFileSync(file, [
    '',
    `## Hog: compile throughput and webhook execution (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Command: \`npx tsc -p tsconfig.json && node dist/bench/hog.js --time ${TIME_MS} --record\``,
    `Node ${process.version}, @posthog/hogvm ${(require('@posthog/hogvm/package.json') as { version: string }).version}. ` +
      'Baselines in the same run: the parser alone for compiling, @posthog/hogvm\'s execAsync for running. ' +
      `Load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')} (2 cores, shared).`,
    '',
    table,
    '',
    `Same-run ratios: ${ratios}.`,
    '',
  ].join('\n'));
  console.log(`appended to ${file}`);
}
