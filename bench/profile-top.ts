// Where a profiled process spent its CPU, per thread: reads the .cpuprofile files that
// `node --cpu-prof --cpu-prof-dir=DIR` writes (one per thread, worker threads included:
// CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile) and prints, for each, the thread's
// busy time (sampled time not idle), what it ran (its worker entry script; for the log
// consumers, which share one, the src/ domain it spent most in), its self time by package
// or source folder, and its top functions by self time. --skip-ms leaves out the first ms
// after the earliest profile's start (the process's start-up: module loading, compiling).
// --inclusive TEXT adds, per thread, the total (self and callees) time of the functions
// whose file contains TEXT (e.g. src/destinations): which step the time is spent under.
//   node dist/bench/profile-top.js DIR [--top 15] [--min-busy-ms 50] [--skip-ms 0] [--inclusive TEXT]
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values: args, positionals } = parseArgs({ allowPositionals: true, options: {
  top: { type: 'string', default: '15' },
  'min-busy-ms': { type: 'string', default: '50' },
  'skip-ms': { type: 'string', default: '0' },
  inclusive: { type: 'string' },
} });
const TOP = Number(args.top);

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface Profile { nodes: ProfileNode[]; startTime: number; endTime: number; samples: number[]; timeDeltas: number[] }

// A file's place, for grouping: a package (lmdb, @posthog/hogvm…), src/<domain>, workers/…, node internals.
function area(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node internals';
  const own = /\/dist\/(src\/[^/]+|workers|bench)/.exec(url);
  return own ? own[1] : url;
}

const short = (url: string) => url.replace(/^.*\/dist\//, '').replace(/^.*\/node_modules\//, '').replace(/^file:\/\//, '');

// The log consumers share workers/consumer.js: named by the domain they spent most in.
const CONSUMER_DOMAINS: Record<string, string> = { 'src/persons': 'event store', 'src/events': 'event store', 'src/insights': 'insights', 'src/destinations': 'destinations' };

// Profiles' times are µs of one monotonic clock for every thread of a process.
function read(p: Profile, fromUs: number) {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  // timeDeltas[i] is the time since the sample before: it belongs to that sample's frame.
  let at = p.startTime + (p.timeDeltas[0] ?? 0);
  let first = Math.max(p.startTime, fromUs);
  for (let i = 1; i < p.samples.length; i++) {
    at += p.timeDeltas[i];
    if (at <= fromUs) continue;
    self.set(p.samples[i - 1], (self.get(p.samples[i - 1]) ?? 0) + p.timeDeltas[i]);
  }
  if (first > p.endTime) first = p.endTime;
  const total = (p.endTime - first) / 1000;
  let idle = 0;
  const fns = new Map<string, number>();
  const areas = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let entry = '';
  const keyOf = (f: CallFrame) => `${f.functionName || '(anonymous)'} ${f.url ? `${short(f.url)}:${f.lineNumber + 1}` : ''}`.trim();
  for (const [id, us] of self) {
    const f = byId.get(id)!.callFrame;
    const ms = us / 1000;
    if (f.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const key = keyOf(f);
    if (args.inclusive !== undefined) {
      const seen = new Set<string>();
      for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) {
        const cf = byId.get(n)!.callFrame;
        if (!cf.url.includes(args.inclusive)) continue;
        const k = keyOf(cf);
        if (seen.has(k)) continue;
        seen.add(k);
        inclusive.set(k, (inclusive.get(k) ?? 0) + ms);
      }
    }
    fns.set(key, (fns.get(key) ?? 0) + ms);
    const a = area(f.url, f.functionName);
    areas.set(a, (areas.get(a) ?? 0) + ms);
  }
  for (const n of p.nodes) {
    const m = /\/dist\/(workers\/[^/]+\.js|src\/main\.js)/.exec(n.callFrame.url);
    if (m) {
      entry = m[1];
      break;
    }
  }
  if (entry === 'workers/consumer.js') {
    const domain = [...areas].filter(([a]) => a in CONSUMER_DOMAINS).sort((a, b) => b[1] - a[1])[0];
    if (domain) entry += ` (${CONSUMER_DOMAINS[domain[0]]})`;
  }
  return { total, busy: total - idle, entry, fns, areas, inclusive };
}

const dir = positionals[0];
const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
const profiles = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile);
const fromUs = Math.min(...profiles.map((p) => p.startTime)) + Number(args['skip-ms']) * 1000;
const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;
for (const [i, file] of files.entries()) {
  const r = read(profiles[i], fromUs);
  if (r.busy < Number(args['min-busy-ms'])) {
    console.log(`\n${file}: ${r.entry || '?'}, busy ${r.busy.toFixed(0)} ms of ${r.total.toFixed(0)} ms (skipped)`);
    continue;
  }
  const thread = /\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1];
  console.log(`\n${file} (thread ${thread}): ${r.entry || '?'}, busy ${r.busy.toFixed(0)} ms of ${r.total.toFixed(0)} ms sampled`);
  console.log(`  by area: ${[...r.areas].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([a, ms]) => `${a} ${pct(ms, r.busy)}`).join(', ')}`);
  for (const [fn, ms] of [...r.fns].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${ms.toFixed(0).padStart(7)} ms ${pct(ms, r.busy).padStart(6)}  ${fn}`);
  if (r.inclusive.size === 0) continue;
  console.log(`  total time under the functions of ${args.inclusive}:`);
  for (const [fn, ms] of [...r.inclusive].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${ms.toFixed(0).padStart(7)} ms ${pct(ms, r.busy).padStart(6)}  ${fn}`);
}
