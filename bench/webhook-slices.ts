// What a webhook delivery costs a Hog worker, in this process and nothing else: the
// pipeline's two slices of one invocation (src/destinations/runtime/steps.ts: the program
// run to its fetch and the request's body made, then resumed with the answer to its end)
// on posthog-js-like events (bench/sdk-traffic) with their person, for the webhook
// template's code as it is and as it was (the request held in a local across the fetch),
// sending the whole event and person (the sustained mix's "every event") or four fields
// (the short mix). Variants alternate in rounds in one process, so their ratios hold on a
// loaded machine; CPU is this thread's (process.cpuUsage, one thread busy).
//   node dist/bench/webhook-slices.js [--rounds 5] [--invocations 2000]
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { compileProgram, DESTINATION_FUNCTIONS, initHog, type Bytecode } from '../src/hog/index.js';
import { fetchRequest } from '../src/destinations/fetch/fetch-rules.js';
import { runInvocationSlice } from '../src/destinations/runtime/run-slice.js';
import { webhookTemplate } from '../src/destinations/templates/webhook.js';
import { createTraffic } from './sdk-traffic.js';

const { values: args } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, invocations: { type: 'string', default: '2000' } } });
const ROUNDS = Number(args.rounds);
const N = Number(args.invocations);

// The template's code before the request was built inside the fetch call.
const HELD_IN_A_LOCAL = `let request := {
  'method': inputs.method,
  'headers': inputs.headers,
  'body': inputs.body
}

if (inputs.debug) {
  print('Request', inputs.url, request)
}

let res := fetch(inputs.url, request)

if (res.status >= 300) {
  throw Error(f'Webhook failed with status {res.status}: {res.body}')
}

if (inputs.debug) {
  print('Response', res.status, res.body)
}
`;

await initHog();
const compile = (code: string): Bytecode => {
  const c = compileProgram(code, { functions: DESTINATION_FUNCTIONS });
  if (!c.ok) throw new Error('does not compile');
  return c.bytecode;
};

const traffic = createTraffic({ token: 'phc_bench', devices: 1000, newDeviceShare: 0.02, seed: 26 });
const events = Array.from({ length: 500 }, (_, i) => traffic.next(Date.now() + i));
const globalsOf = (i: number, whole: boolean) => {
  const e = events[i % events.length];
  const event = { uuid: e.uuid, event: e.event, distinct_id: String(e.properties.distinct_id), properties: e.properties, timestamp: e.timestamp, elements_chain: '', url: '' };
  const person = { id: `person-${i % 97}`, properties: { email: `u${i}@example.com`, ...(e.$set_once ?? {}) }, name: '', url: '' };
  const body = whole ? { event, person } : { event: event.event, uuid: event.uuid, url: event.properties.$current_url, person: person.id };
  return {
    project: { id: 1, name: 'p', url: 'http://localhost:8000/project/1' }, event, person, groups: {},
    source: { name: 'fn', url: 'http://localhost:8000/project/1/pipeline/destinations/hog-1/configuration/' },
    inputs: { url: 'http://127.0.0.1:1/fn-a', method: 'POST', headers: { 'Content-Type': 'application/json' }, body, debug: false },
  };
};

// A slice's 100 ms bound is wall-clock time: on a loaded machine a thread put aside for that
// long fails its slice (counted, and the run goes on).
let timedOut = 0;
function delivery(bytecode: Bytecode, globals: Record<string, unknown>): void {
  const first = runInvocationSlice({ bytecode, state: null, response: null, globals, secretKeys: [], logsSoFar: 0 });
  if (first.fetch === null && first.error?.includes('timed out')) {
    timedOut++;
    return;
  }
  if (first.fetch === null) throw new Error(`no fetch: ${first.error}`);
  fetchRequest(String(first.fetch.url), first.fetch.options as never);
  const last = runInvocationSlice({ bytecode: null, state: first.fetch.state, response: { status: 200, body: { ok: true } }, globals, secretKeys: [], logsSoFar: 0 });
  if (last.error?.includes('timed out')) timedOut++;
  else if (last.error !== null) throw new Error(last.error);
}

const variants = [
  { name: 'template now, whole event and person', bytecode: compile(webhookTemplate.code), whole: true },
  { name: 'request held in a local (before), whole event and person', bytecode: compile(HELD_IN_A_LOCAL), whole: true },
  { name: 'template now, four fields', bytecode: compile(webhookTemplate.code), whole: false },
  { name: 'request held in a local (before), four fields', bytecode: compile(HELD_IN_A_LOCAL), whole: false },
];
const globals = { whole: Array.from({ length: N }, (_, i) => globalsOf(i, true)), short: Array.from({ length: N }, (_, i) => globalsOf(i, false)) };
// Warm-up (the VM's first programs compile its code, and may run past their time bound).
for (const v of variants) for (let i = 0; i < 500; i++) delivery(v.bytecode, (v.whole ? globals.whole : globals.short)[i]);
timedOut = 0;

const results = new Map<string, number[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const v of variants) {
    const g = v.whole ? globals.whole : globals.short;
    const before = process.cpuUsage();
    for (let i = 0; i < N; i++) delivery(v.bytecode, g[i]);
    const used = process.cpuUsage(before);
    const list = results.get(v.name) ?? [];
    list.push((used.user + used.system) / N);
    results.set(v.name, list);
  }
}
console.log(`Node ${process.version}; ${ROUNDS} rounds of ${N} invocations per variant; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}; slices past their 100 ms bound (wall clock): ${timedOut}`);
console.log('| variant | µs CPU per delivery, median | per round |');
console.log('|---|---:|---|');
for (const [name, list] of results) {
  const sorted = [...list].sort((a, b) => a - b);
  console.log(`| ${name} | ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} | ${list.map((x) => x.toFixed(0)).join(', ')} |`);
}
