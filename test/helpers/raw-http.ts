// A raw HTTP/1.1 exchange over a socket, for cases fetch cannot express: a declared
// body that is never sent, or a chunked body that keeps growing.
import { connect } from 'node:net';

export function rawExchange(port: number, head: string, body: (write: (b: string | Buffer) => boolean) => void = () => {},
  timeoutMs = 5000): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => { socket.destroy(); reject(new Error(`no response in ${timeoutMs} ms: ${data}`)); }, timeoutMs);
    const finish = () => {
      clearTimeout(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(data);
      if (m) resolve({ status: Number(m[1]), text: data });
      else reject(new Error(`no HTTP response: ${data}`));
    };
    socket.on('data', (d) => {
      data += d.toString('latin1');
      if (/\r\n\r\n/.test(data) && /Content-Length: (\d+)/i.test(data)) {
        const len = Number(/Content-Length: (\d+)/i.exec(data)![1]);
        if (data.length >= data.indexOf('\r\n\r\n') + 4 + len) { socket.destroy(); finish(); }
      }
    });
    socket.on('close', finish);
    socket.on('error', () => {});
    socket.write(head);
    body((b) => (socket.destroyed ? false : socket.write(b)));
  });
}

export interface RawResponse {
  status: number;
  headers: string;
  body: string;
}

// Splits HTTP/1.1 responses with Content-Length bodies out of what a socket received.
function parseResponses(data: string): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  for (;;) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0) return out;
    const headers = data.slice(at, end);
    const len = Number(/Content-Length: (\d+)/i.exec(headers)?.[1] ?? 0);
    if (data.length < end + 4 + len) return out;
    out.push({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(headers)?.[1]), headers, body: data.slice(end + 4, end + 4 + len) });
    at = end + 4 + len;
  }
}

// A client that writes every part before it reads anything, as a simple SDK does, then
// reads until `responses` answers have come or the server closes. `writeError` is the
// socket error of a write the server refused (EPIPE, ECONNRESET), else null.
export function writeAllThenRead(port: number, parts: (string | Buffer)[], responses: number, timeoutMs = 20_000):
  Promise<{ writeError: string | null; responses: RawResponse[] }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.pause();
    let data = '';
    let writeError: string | null = null;
    let settled = false;
    const finish = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ writeError, responses: parseResponses(data) });
    };
    const timer = setTimeout(finish, timeoutMs);
    socket.on('error', (err: NodeJS.ErrnoException) => { writeError ??= err.code ?? err.message; finish(); });
    socket.on('data', (d) => {
      data += d.toString('latin1');
      if (parseResponses(data).length >= responses) finish();
    });
    socket.on('close', finish);
    parts.forEach((part, i) => socket.write(part, i === parts.length - 1 ? () => socket.resume() : undefined));
  });
}
