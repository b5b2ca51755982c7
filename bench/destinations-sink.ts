// The local endpoint that bench/destinations and bench/sustained deliver to, in its own
// process so its work is not the load generator's: it answers every request 200
// {"ok":true} (keep-alive) and counts requests by path; GET /_counts answers the counts as
// JSON, POST /_reset clears them. A body holding `sustained-probe:<36-character id>`
// (bench/sustained's probe events, delivered whole) has its arrival time noted (ms since
// the epoch, sub-millisecond); GET /_probes answers those noted since the last call.
// uWebSockets.js rather than node:http: at thousands of deliveries a second on a 2-core
// machine the sink's own CPU is taken from the server's.
// Prints {"msg":"listening","port":…} once it listens.
import uWS from 'uWebSockets.js';

const PROBE = Buffer.from('sustained-probe:');
const ID_LENGTH = 36;
const now = () => performance.timeOrigin + performance.now();

let counts: Record<string, number> = {};
let probes: Record<string, number> = {};

function answer(res: uWS.HttpResponse, body: string) {
  res.cork(() => res.writeHeader('Content-Type', 'application/json').end(body));
}

function delivered(url: string, body: Buffer) {
  counts[url] = (counts[url] ?? 0) + 1;
  const at = body.indexOf(PROBE);
  if (at < 0) return;
  const id = body.toString('latin1', at + PROBE.length, at + PROBE.length + ID_LENGTH);
  probes[id] ??= now();
}

uWS.App()
  .get('/_counts', (res) => answer(res, JSON.stringify(counts)))
  .get('/_probes', (res) => {
    answer(res, JSON.stringify(probes));
    probes = {};
  })
  .post('/_reset', (res) => {
    counts = {};
    probes = {};
    res.onAborted(() => {});
    res.onData((_chunk, isLast) => { if (isLast) answer(res, '{}'); });
  })
  .get('/*', (res, req) => {
    delivered(req.getUrl(), Buffer.alloc(0));
    answer(res, '{"ok":true}');
  })
  .any('/*', (res, req) => {
    const url = req.getUrl();
    let aborted = false;
    res.onAborted(() => { aborted = true; });
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      delivered(url, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
      if (!aborted) answer(res, '{"ok":true}');
    });
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) process.exit(1);
    process.stdout.write(JSON.stringify({ msg: 'listening', port: uWS.us_socket_local_port(socket) }) + '\n');
  });
