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
