// A local HTTP endpoint for destinations to deliver to: it records each request (method,
// path, headers, body) and answers with what the test says (200 with {"ok": true} unless
// told otherwise). `answered` counts only requests it answered with a 2xx that the client
// was still there to receive (a client killed while its request was held never counts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  // When it arrived (Date.now()), for a failing test to say.
  at: number;
  json(): any;
}

export type Responder = (req: SinkRequest, res: ServerResponse) => void;

export interface Sink {
  url: string;
  requests: SinkRequest[];
  // Requests answered 2xx to a client that was still connected.
  answered: SinkRequest[];
  respond: Responder;
  reset(): void;
  close(): Promise<void>;
}

export const ok: Responder = (_req, res) => { res.setHeader('Content-Type', 'application/json'); res.end('{"ok":true}'); };

// `host`: the loopback address it listens on (another than 127.0.0.1 lets one server's
// allowance, HEDGEROW_HOG_FETCH_ALLOW, name this sink and not another).
export async function startSink(host = '127.0.0.1'): Promise<Sink> {
  const sink: Sink = {
    url: '', requests: [], answered: [], respond: ok,
    reset() { sink.requests = []; sink.answered = []; sink.respond = ok; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => { body += d.toString(); });
    req.on('end', () => {
      const entry: SinkRequest = { method: req.method!, path: req.url!, headers: req.headers, body, at: Date.now(), json: () => JSON.parse(body) };
      sink.requests.push(entry);
      let gone = false;
      res.on('close', () => { if (!res.writableFinished) gone = true; });
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof res.end>) => {
        if (!gone && !req.socket.destroyed && res.statusCode < 300) sink.answered.push(entry);
        return end(...args);
      }) as typeof res.end;
      sink.respond(entry, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, host, r));
  sink.url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return sink;
}
