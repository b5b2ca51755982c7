// Flag evaluation micro benchmark: hedgerow's compiled evaluator against posthog-node's
// own local evaluator (its FeatureFlagsPoller, fed the same definitions through a stub
// fetch), on the same flags and the same 1000 people, in one run. Each task evaluates a
// batch of people so timer overhead does not swamp sub-microsecond work; the figures are
// evaluations per second. Before timing, both evaluators must agree on every person.
//   node dist/bench/flags-core.js [--time 1000] [--record]
// --record appends a dated section to bench/RESULTS.md.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PostHog } from 'posthog-node';
import { Bench } from 'tinybench';
import { compileFlags, evaluateFlags } from '../src/flags/index.js';
import type { EvaluationContext, FlagDefinition, FlagValue } from '../src/flags/index.js';

const { values: args } = parseArgs({ options: { time: { type: 'string', default: '1000' }, record: { type: 'boolean', default: false } } });
const TIME_MS = Number(args.time);
const BATCH = 100;
const PEOPLE = 1000;

const scenarios: { name: string; flag: FlagDefinition }[] = [
  {
    name: 'simple rollout (45%)',
    flag: { id: 1, key: 'simple-rollout', active: true, filters: { groups: [{ properties: [], rollout_percentage: 45 }] } },
  },
  {
    name: 'multivariate (55%, 5 variants)',
    flag: {
      id: 2,
      key: 'multivariate',
      active: true,
      filters: {
        groups: [{ properties: [], rollout_percentage: 55 }],
        multivariate: {
          variants: [
            { key: 'first', rollout_percentage: 50 },
            { key: 'second', rollout_percentage: 20 },
            { key: 'third', rollout_percentage: 20 },
            { key: 'fourth', rollout_percentage: 5 },
            { key: 'fifth', rollout_percentage: 5 },
          ],
        },
        payloads: { first: '{"n":1}' },
      },
    },
  },
  {
    name: '5-property filter',
    flag: {
      id: 3,
      key: 'five-properties',
      active: true,
      filters: {
        groups: [
          {
            properties: [
              { key: 'country', type: 'person', operator: 'exact', value: ['US', 'CA', 'GB', 'NZ'] },
              { key: 'email', type: 'person', operator: 'icontains', value: '@example.com' },
              { key: 'age', type: 'person', operator: 'gte', value: 18 },
              { key: 'plan', type: 'person', operator: 'is_not', value: 'free' },
              { key: 'app_version', type: 'person', operator: 'semver_gte', value: '2.1.0' },
            ],
            rollout_percentage: 80,
          },
        ],
      },
    },
  },
];

// Deterministic people, most of whom pass most filters so the whole chain runs.
const people = Array.from({ length: PEOPLE }, (_, i) => ({
  distinctId: `user-${i}`,
  properties: {
    country: ['us', 'CA', 'gb', 'nz', 'de'][i % 5],
    email: `person${i}@${i % 7 === 0 ? 'other.org' : 'Example.com'}`,
    age: 14 + (i % 50),
    plan: ['pro', 'team', 'free', 'enterprise'][i % 4],
    app_version: `${2 + (i % 2)}.${i % 4}.${i % 10}`,
  },
}));

interface Poller {
  computeFlagAndPayloadLocally(
    flag: FlagDefinition,
    context: { distinctId: string; groups: object; personProperties: object; groupProperties: object; evaluationCache: object },
  ): Promise<{ value: FlagValue }>;
}

async function posthogNodePoller(flags: FlagDefinition[]): Promise<{ client: PostHog; poller: Poller }> {
  const body = { flags, group_type_mapping: {}, cohorts: {} };
  const fetch = async () => ({ status: 200, headers: new Headers(), text: async () => JSON.stringify(body), json: async () => body });
  const client = new PostHog('phc_bench', {
    host: 'http://127.0.0.1:9',
    personalApiKey: 'phx_bench',
    featureFlagsPollingInterval: 3_600_000,
    fetch: fetch as never,
  });
  if (!(await client.waitForLocalEvaluationReady(5000))) throw new Error('posthog-node did not load the flag definitions');
  return { client, poller: (client as unknown as { featureFlagsPoller: Poller }).featureFlagsPoller };
}

const ph = await posthogNodePoller(scenarios.map((s) => s.flag));
const now = Date.now();
const contexts: EvaluationContext[] = people.map((p) => ({ distinct_id: p.distinctId, person_properties: p.properties, now }));
const phContexts = people.map((p) => ({ distinctId: p.distinctId, groups: {}, personProperties: p.properties, groupProperties: {}, evaluationCache: {} }));

// Same answers first: a fast wrong evaluator is no comparison.
for (const { name, flag } of scenarios) {
  const compiled = compileFlags({ flags: [flag] });
  let enabled = 0;
  for (let i = 0; i < PEOPLE; i++) {
    const ours = evaluateFlags(compiled, contexts[i]).flags[0].value;
    const theirs = (await ph.poller.computeFlagAndPayloadLocally(flag, phContexts[i])).value;
    if (ours !== theirs) throw new Error(`${name}: ${people[i].distinctId} is ${String(ours)} here, ${String(theirs)} in posthog-node`);
    if (ours !== false) enabled++;
  }
  console.log(`${name}: both evaluators agree on all ${PEOPLE} people (${enabled} enabled)`);
}

const bench = new Bench({ time: TIME_MS, warmupTime: 200 });
let cursor = 0;
for (const { name, flag } of scenarios) {
  const compiled = compileFlags({ flags: [flag] });
  bench.add(`hedgerow · ${name}`, () => {
    for (let b = 0; b < BATCH; b++) {
      evaluateFlags(compiled, contexts[cursor]);
      cursor = (cursor + 1) % PEOPLE;
    }
  });
  bench.add(`posthog-node · ${name}`, async () => {
    for (let b = 0; b < BATCH; b++) {
      await ph.poller.computeFlagAndPayloadLocally(flag, phContexts[cursor]);
      cursor = (cursor + 1) % PEOPLE;
    }
  });
}
await bench.run();
await ph.client.shutdown();

const perSecond = (name: string) => (bench.getTask(name)?.result?.throughput.mean ?? NaN) * BATCH;
const rows = scenarios.map(({ name }) => {
  const ours = perSecond(`hedgerow · ${name}`);
  const theirs = perSecond(`posthog-node · ${name}`);
  return { name, ours, theirs, ratio: ours / theirs };
});

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const table = [
  '| flag | hedgerow evals/s | posthog-node evals/s | ratio |',
  '|---|---:|---:|---:|',
  ...rows.map((r) => `| ${r.name} | ${fmt(r.ours)} | ${fmt(r.theirs)} | ${r.ratio.toFixed(1)}× |`),
].join('\n');
console.log(`\n${table}\n`);

if (args.record) {
  const file = join(process.cwd(), 'bench', 'RESULTS.md');
  const header = existsSync(file) ? '' : '# Benchmark results\n';
  const phVersion = JSON.parse(readFileSync(join(process.cwd(), 'node_modules/posthog-node/package.json'), 'utf8')).version;
  const section = [
    header,
    `## Flag evaluation core vs posthog-node local evaluation (${new Date().toISOString().slice(0, 10)})`,
    '',
    `Command: \`npx tsc -p tsconfig.json && node dist/bench/flags-core.js --time ${TIME_MS} --record\``,
    `Node ${process.version}, posthog-node ${phVersion}, ${PEOPLE} people cycled, ${BATCH} evaluations per timed call,`,
    'one flag per evaluation (value and payload). Both evaluators agreed on every person before timing.',
    '',
    table,
    '',
  ].join('\n');
  appendFileSync(file, section);
  console.log(`appended to ${file}`);
}
