// A local SMTP receiver for tests (RFC 5321's server side, the commands a client sends a
// plain server): it records each message's envelope and data (dot-stuffing undone), and
// refuses what the test says (`refuse`: a command word answered 550).
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface SmtpMessage {
  from: string;
  to: string[];
  data: string;
  auth: string | null;
}

export interface SmtpSink {
  port: number;
  url: string;
  messages: SmtpMessage[];
  refuse: Set<string>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const sockets = new Set<Socket>();
  const sink: SmtpSink = {
    port: 0, url: '', messages: [], refuse: new Set(),
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: SmtpMessage = { from: '', to: [], data: '', auth: null };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 test-smtp ready');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end + 2).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          inData = false;
          sink.messages.push(current);
          current = { from: '', to: [], data: '', auth: current.auth };
          reply('250 queued');
          continue;
        }
        const at = buffer.indexOf('\r\n');
        if (at < 0) return;
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const word = line.split(/[ :]/)[0].toUpperCase();
        if (sink.refuse.has(word)) { reply(`550 refused ${word}`); continue; }
        if (word === 'EHLO' || word === 'HELO') { socket.write('250-test-smtp\r\n250 AUTH PLAIN\r\n'); continue; }
        if (word === 'AUTH') { current.auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8'); reply('235 ok'); continue; }
        if (word === 'MAIL') { current.from = /<(.*)>/.exec(line)?.[1] ?? ''; reply('250 ok'); continue; }
        if (word === 'RCPT') { current.to.push(/<(.*)>/.exec(line)?.[1] ?? ''); reply('250 ok'); continue; }
        if (word === 'DATA') { inData = true; reply('354 go on'); continue; }
        if (word === 'QUIT') { reply('221 bye'); socket.end(); return; }
        reply('502 not implemented');
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sink.port = (server.address() as AddressInfo).port;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  return sink;
}
