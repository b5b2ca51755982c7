// A local SMTP receiver for tests (RFC 5321's server side, the commands a client sends a
// plain server): it records each message's envelope and data (dot-stuffing undone), and
// refuses what the test says (`refuse`: a command word answered 550). With `tls` (a
// certificate and key, test/fixtures/test-tls.ts) it offers STARTTLS (RFC 3207) and records
// whether each message and login came over TLS; with `implicit` it speaks TLS from the
// first byte (smtps://).
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer, TLSSocket } from 'node:tls';

export interface SmtpMessage {
  from: string;
  to: string[];
  data: string;
  auth: string | null;
  // Whether the message's session (its login too) was encrypted.
  tls: boolean;
}

export interface SmtpSink {
  port: number;
  url: string;
  messages: SmtpMessage[];
  refuse: Set<string>;
  // Every login seen, in order, and whether it came over TLS.
  logins: { auth: string; tls: boolean }[];
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  tls?: { cert: string; key: string };
  implicit?: boolean;
}

export async function startSmtpSink(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const sockets = new Set<Socket>();
  const sink: SmtpSink = {
    port: 0, url: '', messages: [], refuse: new Set(), logins: [],
    close: () => new Promise<void>((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
  // One session over `socket`; STARTTLS starts another over the same connection, encrypted.
  const serve = (socket: Socket, secure: boolean, greet: boolean) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: SmtpMessage = { from: '', to: [], data: '', auth: null, tls: secure };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    if (greet) reply('220 test-smtp ready');
    const onData = (chunk: string) => {
      buffer += chunk;
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end + 2).replace(/^\.\./gm, '.');
          buffer = buffer.slice(end + 5);
          inData = false;
          sink.messages.push(current);
          current = { from: '', to: [], data: '', auth: current.auth, tls: secure };
          reply('250 queued');
          continue;
        }
        const at = buffer.indexOf('\r\n');
        if (at < 0) return;
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const word = line.split(/[ :]/)[0].toUpperCase();
        if (sink.refuse.has(word)) { reply(`550 refused ${word}`); continue; }
        if (word === 'EHLO' || word === 'HELO') {
          socket.write(`250-test-smtp\r\n${options.tls && !secure ? '250-STARTTLS\r\n' : ''}250 AUTH PLAIN\r\n`);
          continue;
        }
        if (word === 'STARTTLS' && options.tls && !secure) {
          socket.off('data', onData);
          reply('220 go ahead');
          serve(new TLSSocket(socket, { isServer: true, cert: options.tls.cert, key: options.tls.key }), true, false);
          return;
        }
        if (word === 'AUTH') {
          current.auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8');
          sink.logins.push({ auth: current.auth, tls: secure });
          reply('235 ok');
          continue;
        }
        if (word === 'MAIL') { current.from = /<(.*)>/.exec(line)?.[1] ?? ''; reply('250 ok'); continue; }
        if (word === 'RCPT') { current.to.push(/<(.*)>/.exec(line)?.[1] ?? ''); reply('250 ok'); continue; }
        if (word === 'DATA') { inData = true; reply('354 go on'); continue; }
        if (word === 'QUIT') { reply('221 bye'); socket.end(); return; }
        reply('502 not implemented');
      }
    };
    socket.on('data', onData);
  };
  const server: Server = options.implicit && options.tls
    ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, (socket) => serve(socket, true, true))
    : createServer((socket) => serve(socket, false, true));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  sink.port = (server.address() as AddressInfo).port;
  sink.url = `${options.implicit ? 'smtps' : 'smtp'}://127.0.0.1:${sink.port}`;
  return sink;
}
