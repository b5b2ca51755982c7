// The main-thread cost of reading a /decide body into a flag request (src/flags/request.ts:
// readFlagRequest, with the bounds on depth and size of docs/decisions/0028), on
// posthog-js and posthog-node style bodies, in µs per request. With --baseline DIR (a
// built checkout of an earlier commit) the same bodies go through that checkout's
// readFlagRequest too, alternating rounds so that both see the same machine.
//   node dist/bench/decide-edge.js [--rounds 7] [--requests 200000] [--baseline DIR]
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from './ceiling.js';

type Reader = (payload: unknown, query: URLSearchParams) => unknown;

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '7' },
    requests: { type: 'string', default: '200000' },
    baseline: { type: 'string' },
  },
});
const rounds = Number(values.rounds);
const requests = Number(values.requests);

const load = async (dir: string): Promise<Reader> =>
  (await import(pathToFileURL(join(dir, 'dist/src/flags/request.js')).href) as { readFlagRequest: Reader }).readFlagRequest;

// What the SDKs send: posthog-js its initial person properties and a group; posthog-node
// the properties its caller passes, with group properties.
const BODIES: Record<string, unknown> = {
  'posthog-js': {
    token: 'phc_bench', distinct_id: '0190e4b2-7c1a-7d4e-9b8a-5f2c3d4e5f60', groups: { company: 'company-12' },
    person_properties: {
      $initial_referrer: '$direct', $initial_referring_domain: '$direct', $initial_current_url: 'https://app.example.com/pricing',
      $initial_pathname: '/pricing', $initial_browser: 'Chrome', $initial_os: 'Mac OS X', $initial_device_type: 'Desktop',
    },
    $anon_distinct_id: '0190e4b2-7c1a-7d4e-9b8a-5f2c3d4e5f60', $device_id: '0190e4b2-7c1a-7d4e-9b8a-5f2c3d4e5f60',
  },
  'posthog-node': {
    token: 'phc_bench', distinct_id: 'user-4711', groups: { company: 'acme', project: 'p-9' },
    person_properties: { distinct_id: 'user-4711', email: 'ann@acme.com', plan: 'pro', seats: 12, beta: true, tags: ['a', 'b'] },
    group_properties: { company: { $group_key: 'acme', size: 500, industry: 'retail' }, project: { $group_key: 'p-9', tier: 2 } },
  },
};

function measure(read: Reader, body: unknown, query: URLSearchParams): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < requests; i++) read(body, query);
  return Number(process.hrtime.bigint() - start) / 1000 / requests;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const readers: [string, Reader][] = [['this checkout', await load(root)]];
if (values.baseline) readers.push([`baseline ${values.baseline}`, await load(values.baseline)]);
const query = new URLSearchParams('v=3');
for (const [name, body] of Object.entries(BODIES)) {
  const times = readers.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) readers.forEach(([, read], i) => times[i].push(measure(read, body, query)));
  for (let i = 0; i < readers.length; i++) {
    const t = times[i];
    console.log(`${name.padEnd(13)} ${readers[i][0].padEnd(28)} median ${median(t).toFixed(3)} µs  min ${Math.min(...t).toFixed(3)}  max ${Math.max(...t).toFixed(3)}`);
  }
}
