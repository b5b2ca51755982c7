// What the stages behind capture cannot do without, per posthog-js-like event (issue 26: the
// floor under 10,000 events/s end to end on two cores; bench/RESULTS.md, "10,000 events/s end
// to end on two cores"). Alone in this thread, warm, on the sustained mix's events
// (bench/sdk-traffic, 50 per body):
//   - capture: gunzip and JSON.parse of each gzipped /batch/ body (and gunzip alone);
//   - a consumer's thread: the event made JS objects again from bytes, with each of three
//     decoders (JSON, what the log holds today; V8's own format; msgpackr).
// CPU (process.cpuUsage) per event, per round.
//   node dist/bench/stage-floors.js [--bodies 400] [--rounds 5]
import { parseArgs } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Packr } from 'msgpackr';
import { createTraffic } from './sdk-traffic.js';

const { values: args } = parseArgs({ options: {
  bodies: { type: 'string', default: '400' },
  rounds: { type: 'string', default: '5' },
} });
const BODIES = Number(args.bodies);
const PER_BODY = 50;
const EVENTS = BODIES * PER_BODY;

const traffic = createTraffic({ token: 'phc_floor', devices: 10_000, newDeviceShare: 0.02, seed: 1 });
const batches: unknown[][] = [];
for (let b = 0; b < BODIES; b++) {
  const events: unknown[] = [];
  for (let i = 0; i < PER_BODY; i++) events.push(traffic.next(Date.now() - (PER_BODY - i) * 20));
  batches.push(events);
}
const json = batches.map((b) => Buffer.from(JSON.stringify(b)));
const gzipped = json.map((b) => gzipSync(b));
const v8 = batches.map((b) => serialize(b));
const packr = new Packr({ useRecords: false });
const msgpack = batches.map((b) => packr.pack(b));

const bytes = (xs: Uint8Array[]) => Math.round(xs.reduce((n, x) => n + x.length, 0) / EVENTS);
const perEvent = (work: () => void): string => {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / EVENTS).toFixed(1);
};

console.log(`Node ${process.version}; ${EVENTS.toLocaleString('en-US')} events in ${BODIES} bodies of ${PER_BODY}; bytes per event: JSON ${bytes(json)}, ` +
  `gzipped ${bytes(gzipped)}, V8 ${bytes(v8)}, msgpack ${bytes(msgpack)}. µs of CPU per event:`);
console.log('| round | gunzip + JSON.parse | gunzip alone | JSON.parse | v8.deserialize | msgpackr unpack |');
console.log('|---:|---:|---:|---:|---:|---:|');
for (let round = 1; round <= Number(args.rounds); round++) {
  const capture = perEvent(() => { for (const b of gzipped) JSON.parse(gunzipSync(b).toString('utf8')); });
  const gunzip = perEvent(() => { for (const b of gzipped) gunzipSync(b); });
  const parse = perEvent(() => { for (const b of json) JSON.parse(b.toString('utf8')); });
  const fromV8 = perEvent(() => { for (const b of v8) deserialize(b); });
  const fromMsgpack = perEvent(() => { for (const b of msgpack) packr.unpack(b); });
  console.log(`| ${round} | ${capture} | ${gunzip} | ${parse} | ${fromV8} | ${fromMsgpack} |`);
}
