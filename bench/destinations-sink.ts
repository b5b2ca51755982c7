// The local endpoint bench/destinations delivers to, in its own process so its work is not
// the load generator's: it answers every request 200 {"ok":true} (keep-alive) and counts
// requests by path; GET /_counts answers the counts as JSON, POST /_reset clears them.
// Prints {"msg":"listening","port":…} once it listens.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let counts: Record<string, number> = {};
const server = createServer((req, res) => {
  if (req.url === '/_counts') {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify(counts));
    return;
  }
  if (req.url === '/_reset') {
    counts = {};
    res.end();
    return;
  }
  req.on('data', () => {});
  req.on('end', () => {
    counts[req.url!] = (counts[req.url!] ?? 0) + 1;
    res.setHeader('Content-Type', 'application/json');
    res.end('{"ok":true}');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ msg: 'listening', port: (server.address() as AddressInfo).port }) + '\n');
});
