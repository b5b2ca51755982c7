// The ceiling for bench/capture: a bare uWebSockets.js server that only reads the
// body and JSON-parses it. Nothing hedgerow does per request is here.
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2] ?? 0);
uWS.App().any('/*', (res) => {
  let aborted = false;
  res.onAborted(() => { aborted = true; });
  const chunks: Buffer[] = [];
  res.onData((chunk, isLast) => {
    chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (!aborted) res.cork(() => res.writeStatus('200 OK').writeHeader('Content-Type', 'application/json').end('{"status":1}'));
  });
}).listen('127.0.0.1', port, (s) => {
  if (!s) process.exit(1);
  process.stdout.write(JSON.stringify({ msg: 'listening', port: uWS.us_socket_local_port(s) }) + '\n');
});
