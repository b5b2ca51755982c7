// bench/sustained's load generator, a child process (forked, IPC) so that its sending is
// not held up by the bench's polling and its CPU is counted apart. It keeps a pool of
// gzipped /batch/ request bodies built ahead of time (posthog-js-like events from
// bench/sdk-traffic, `eventsPerBody` each, every event with its own uuid), so that sending
// costs no JSON or gzip work; the pool grows before a run when the run needs more bodies,
// and every run starts from its first body (each run is against a fresh data dir).
//
// Messages in: {type:'run', port, rate (events/s), seconds, connections, probeMs}.
// Messages out: {type:'pool', …} once the pool is ready, {type:'started', at},
// {type:'probe', id, ackedAt} per probe acknowledged, then {type:'done', …}.
// Probes: every probeMs one `sustained probe` event in its own request, one at a time (so
// the log holds them in the order of their 200s), its uuid the id the bench looks for
// (events API, insights count, the sink, which finds `sustained-probe:<id>` in a delivery).
// Times are ms since the epoch with sub-millisecond precision, comparable across processes.
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { createTraffic, matchesPricing, uuidv7 } from './sdk-traffic.js';
import { fixedRate, percentile, postRequest } from './fixed-rate.js';

const { values: args } = parseArgs({ options: {
  token: { type: 'string' },
  devices: { type: 'string', default: '10000' },
  'new-devices': { type: 'string', default: '0.02' },
  'events-per-body': { type: 'string', default: '50' },
  seed: { type: 'string', default: '26' },
} });
const TOKEN = args.token!;
const PER_BODY = Number(args['events-per-body']);
const now = () => performance.timeOrigin + performance.now();
const send = (m: unknown) => process.send!(m);

const traffic = createTraffic({ token: TOKEN, devices: Number(args.devices), newDeviceShare: Number(args['new-devices']), seed: Number(args.seed) });
const requests: Buffer[] = [];
const pricing: number[] = [];
let rawBytes = 0;
let gzBytes = 0;

// As posthog-js sends a batch: a gzipped JSON array, `compression=gzip-js`, `_` the send
// time (the server corrects the events' timestamps by it: a body built minutes before it
// is sent still carries events of "now").
function batchRequest(events: unknown[], sentMs: number): { request: Buffer; raw: number; gz: number } {
  const text = JSON.stringify(events);
  const gz = gzipSync(text);
  return { request: postRequest('127.0.0.1', `/batch/?compression=gzip-js&ver=1.200.0&_=${Math.round(sentMs)}`, gz, 'text/plain'), raw: Buffer.byteLength(text), gz: gz.length };
}

function growPool(bodies: number) {
  while (requests.length < bodies) {
    const sentMs = Date.now();
    const events = [];
    let matching = 0;
    for (let i = 0; i < PER_BODY; i++) {
      const e = traffic.next(sentMs - (PER_BODY - i) * 20);
      if (matchesPricing(e)) matching++;
      events.push(e);
    }
    const b = batchRequest(events, sentMs);
    requests.push(b.request);
    pricing.push(matching);
    rawBytes += b.raw;
    gzBytes += b.gz;
  }
}

async function probes(base: string, everyMs: number, until: () => boolean): Promise<number> {
  let n = 0;
  while (!until()) {
    const started = now();
    const id = uuidv7(Date.now());
    const event = {
      uuid: id, event: 'sustained probe', timestamp: new Date().toISOString(),
      properties: { distinct_id: 'sustained-prober', token: TOKEN, $lib: 'web', probe: `sustained-probe:${id}` },
    };
    const body = gzipSync(JSON.stringify([event]));
    const r = await fetch(`${base}/batch/?compression=gzip-js&_=${Date.now()}`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body });
    await r.arrayBuffer();
    if (r.status === 200) {
      send({ type: 'probe', id, ackedAt: now() });
      n++;
    }
    const wait = everyMs - (now() - started);
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  return n;
}

process.on('message', async (m: { type: string; port: number; rate: number; seconds: number; connections: number; probeMs: number }) => {
  if (m.type !== 'run') return;
  const reqPerSecond = m.rate / PER_BODY;
  const bodies = Math.ceil(reqPerSecond * m.seconds) + 32;
  const t = performance.now();
  growPool(bodies);
  send({ type: 'pool', bodies: requests.length, ms: performance.now() - t, rawBytesPerEvent: rawBytes / (requests.length * PER_BODY), gzBytesPerBody: gzBytes / requests.length, rawBytesPerBody: rawBytes / requests.length });
  const cpu0 = process.cpuUsage();
  send({ type: 'started', at: now() });
  let running = true;
  const probing = probes(`http://127.0.0.1:${m.port}`, m.probeMs, () => !running);
  // Sleep between sends: at a few hundred requests/s spinning would take a core the server needs.
  const r = await fixedRate({ host: '127.0.0.1', port: m.port, requests, rate: reqPerSecond, durationMs: m.seconds * 1000, connections: m.connections, sleepMs: 1 });
  const endedAt = now();
  running = false;
  const probesSent = await probing;
  const cpu = process.cpuUsage(cpu0);
  // Requests go out in pool order, so the first `sent` bodies are the ones sent.
  let pricingSent = 0;
  for (let i = 0; i < r.sent; i++) pricingSent += pricing[i % pricing.length];
  send({
    type: 'done', endedAt, offeredEvents: m.rate, sentRequests: r.sent, completedRequests: r.completed, eventsSent: r.sent * PER_BODY,
    achievedEvents: r.achieved * PER_BODY, p50: percentile(r.latencies, 50), p99: percentile(r.latencies, 99), max: r.latencies[r.latencies.length - 1] ?? NaN,
    serviceP99: percentile(r.serviceTimes, 99), non2xx: r.non2xx, errors: r.errors, unanswered: r.unanswered, pricingSent, probesSent,
    cpuMs: (cpu.user + cpu.system) / 1000,
  });
});
send({ type: 'ready' });
