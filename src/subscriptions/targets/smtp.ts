// A small SMTP client over node:net (RFC 5321): EHLO, AUTH PLAIN when the operator's URL
// carries a user, MAIL FROM, RCPT TO per address, DATA with the message dot-stuffed, QUIT.
// Plain TCP or implicit TLS (smtps://); no STARTTLS. Written here rather than taken from a
// library: a delivery needs these few commands, and the service sends nothing else by mail.
import { connect as tcp, type Socket } from 'node:net';
import { connect as tls } from 'node:tls';

export interface SmtpServer {
  host: string;
  port: number;
  secure: boolean;
  user: string | null;
  password: string | null;
}

// smtp://user:password@host:port or smtps://…; the port defaults to 25 (465 for smtps).
export function parseSmtpUrl(url: string): SmtpServer {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error('the SMTP URL must start smtp:// or smtps://');
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname, port: u.port ? Number(u.port) : secure ? 465 : 25, secure,
    user: u.username ? decodeURIComponent(u.username) : null, password: u.password ? decodeURIComponent(u.password) : null,
  };
}

// Replies as they arrive: a reply ends at a line "NNN " (continuations are "NNN-").
function replies(socket: Socket): () => Promise<{ code: number; text: string }> {
  let buffer = '';
  const ready: { code: number; text: string }[] = [];
  const waiting: { resolve(r: { code: number; text: string }): void; reject(e: Error): void }[] = [];
  let failed: Error | null = null;
  let lines: string[] = [];
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    let at: number;
    while ((at = buffer.indexOf('\r\n')) >= 0) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      lines.push(line.slice(4));
      if (line[3] !== '-') {
        const reply = { code: Number(line.slice(0, 3)), text: lines.join('\n') };
        lines = [];
        const w = waiting.shift();
        if (w) w.resolve(reply);
        else ready.push(reply);
      }
    }
  });
  const fail = (err: Error) => {
    failed = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  socket.on('error', fail);
  socket.on('close', () => fail(new Error('the SMTP server closed the connection')));
  return () => {
    const r = ready.shift();
    if (r) return Promise.resolve(r);
    if (failed) return Promise.reject(failed);
    return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
  };
}

export interface Mail {
  from: string;
  to: string[];
  // The whole message, headers and body, lines ending CRLF.
  data: string;
}

export async function sendMail(server: SmtpServer, mail: Mail, timeoutMs: number): Promise<void> {
  const socket: Socket = server.secure ? tls({ host: server.host, port: server.port, servername: server.host }) : tcp({ host: server.host, port: server.port });
  socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`the SMTP server did not answer within ${timeoutMs / 1000} s`)));
  const next = replies(socket);
  const expect = async (ok: (code: number) => boolean, what: string) => {
    const r = await next();
    if (!ok(r.code)) throw new Error(`SMTP ${what}: ${r.code} ${r.text}`);
    return r;
  };
  const command = (line: string, what: string, ok: (code: number) => boolean = (c) => c >= 200 && c < 300) => {
    socket.write(`${line}\r\n`);
    return expect(ok, what);
  };
  try {
    await expect((c) => c === 220, 'greeting');
    await command('EHLO hedgerow', 'EHLO');
    if (server.user !== null) {
      const token = Buffer.from(`\0${server.user}\0${server.password ?? ''}`).toString('base64');
      await command(`AUTH PLAIN ${token}`, 'AUTH');
    }
    await command(`MAIL FROM:<${mail.from}>`, 'MAIL FROM');
    for (const to of mail.to) await command(`RCPT TO:<${to}>`, `RCPT TO ${to}`);
    await command('DATA', 'DATA', (c) => c === 354);
    const body = mail.data.replace(/\r?\n/g, '\r\n').replace(/^\./gm, '..');
    socket.write(body.endsWith('\r\n') ? body : `${body}\r\n`);
    await command('.', 'message');
    socket.write('QUIT\r\n');
  } finally {
    socket.end();
    socket.destroy();
  }
}
