// A small SMTP client over node:net (RFC 5321): EHLO, STARTTLS (RFC 3207) when the server
// offers it, AUTH PLAIN when the operator's URL carries a user, MAIL FROM, RCPT TO per
// address, DATA with the message dot-stuffed, QUIT. smtp:// is plain TCP upgraded when it can
// be (or must be: starttls 'required'); smtps:// is implicit TLS. Written here rather than
// taken from a library: a delivery needs these few commands, and the service sends nothing
// else by mail.
import { readFileSync } from 'node:fs';
import { connect as tcp, type Socket } from 'node:net';
import { connect as tls, rootCertificates, type ConnectionOptions } from 'node:tls';

export interface SmtpTrust {
  // Certificates trusted beyond the system's (null: the system's only).
  ca: string[] | null;
  // Any certificate is taken, self-signed too: encrypted, but not who it says it is.
  anyCertificate: boolean;
}

export interface SmtpServer {
  host: string;
  port: number;
  secure: boolean;
  // For smtp://: 'auto' upgrades when the server offers STARTTLS; 'required' sends nothing
  // (no password, no message) over a connection that was not upgraded.
  starttls: 'auto' | 'required';
  trust: SmtpTrust;
  user: string | null;
  password: string | null;
}

const SYSTEM_TRUST: SmtpTrust = { ca: null, anyCertificate: false };

// smtp://user:password@host:port or smtps://…; the port defaults to 25 (465 for smtps).
export function parseSmtpUrl(url: string, starttls: SmtpServer['starttls'] = 'auto', trust: SmtpTrust = SYSTEM_TRUST): SmtpServer {
  const u = new URL(url);
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new Error('the SMTP URL must start smtp:// or smtps://');
  const secure = u.protocol === 'smtps:';
  return {
    host: u.hostname, port: u.port ? Number(u.port) : secure ? 465 : 25, secure, starttls, trust,
    user: u.username ? decodeURIComponent(u.username) : null, password: u.password ? decodeURIComponent(u.password) : null,
  };
}

// The operator's settings (HEDGEROW_SMTP_*) as a server to send through; the CA file is read
// here, once, so a missing one stops the start rather than every delivery.
export function smtpServerOf(o: { smtpUrl: string | null; smtpStartTls: SmtpServer['starttls']; smtpCaFile: string | null; smtpCertificates: 'verify' | 'any' }): SmtpServer | null {
  if (!o.smtpUrl) return null;
  // Node's `ca` replaces the system's roots: keep them beside the operator's.
  const ca = o.smtpCaFile === null ? null : [...rootCertificates, readFileSync(o.smtpCaFile, 'utf8')];
  return parseSmtpUrl(o.smtpUrl, o.smtpStartTls, { ca, anyCertificate: o.smtpCertificates === 'any' });
}

function tlsOptions(server: SmtpServer): ConnectionOptions {
  // An IP address is no server name (SNI); the certificate is still checked against it.
  const servername = /^[\d.]+$|:/.test(server.host) ? undefined : server.host;
  return { host: server.host, servername, rejectUnauthorized: !server.trust.anyCertificate, ...(server.trust.ca ? { ca: server.trust.ca } : {}) };
}

interface Replies {
  next(): Promise<{ code: number; text: string }>;
  // Stops reading this socket (it is about to carry TLS).
  stop(): void;
}

// Replies as they arrive: a reply ends at a line "NNN " (continuations are "NNN-").
function replies(socket: Socket): Replies {
  let buffer = '';
  const ready: { code: number; text: string }[] = [];
  const waiting: { resolve(r: { code: number; text: string }): void; reject(e: Error): void }[] = [];
  let failed: Error | null = null;
  let lines: string[] = [];
  socket.setEncoding('utf8');
  const onData = (chunk: string) => {
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
  };
  const fail = (err: Error) => {
    failed = err;
    for (const w of waiting.splice(0)) w.reject(err);
  };
  const onClose = () => fail(new Error('the SMTP server closed the connection'));
  socket.on('data', onData);
  socket.on('error', fail);
  socket.on('close', onClose);
  return {
    next() {
      const r = ready.shift();
      if (r) return Promise.resolve(r);
      if (failed) return Promise.reject(failed);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    stop() {
      socket.off('data', onData);
      socket.off('error', fail);
      socket.off('close', onClose);
    },
  };
}

// The plain connection upgraded in place, once the server has said 220 to STARTTLS.
function upgrade(plain: Socket, server: SmtpServer): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const secured = tls({ ...tlsOptions(server), socket: plain });
    const failed = (err: Error) => reject(err);
    secured.once('error', failed);
    secured.once('secureConnect', () => {
      secured.off('error', failed);
      resolve(secured);
    });
  });
}

const CERTIFICATE_ERROR = /certificate|self.signed|verify|altname/i;
const trustHint = (err: Error) => (CERTIFICATE_ERROR.test(err.message)
  ? `${err.message} (trust the server's certificate with HEDGEROW_SMTP_CA_FILE, or take any with HEDGEROW_SMTP_CERTIFICATES=any)`
  : err.message);

// EHLO's keywords, one a line after the greeting line ("STARTTLS", "AUTH PLAIN LOGIN").
const offers = (ehlo: string, keyword: string) => ehlo.split('\n').slice(1).some((l) => l.toUpperCase().split(' ')[0] === keyword);

export interface Mail {
  from: string;
  to: string[];
  // The whole message, headers and body, lines ending CRLF.
  data: string;
}

export async function sendMail(server: SmtpServer, mail: Mail, timeoutMs: number): Promise<void> {
  const onTimeout = () => socket.destroy(new Error(`the SMTP server did not answer within ${timeoutMs / 1000} s`));
  let socket: Socket = server.secure ? tls({ ...tlsOptions(server), port: server.port }) : tcp({ host: server.host, port: server.port });
  socket.setTimeout(timeoutMs, onTimeout);
  let reader = replies(socket);
  const expect = async (ok: (code: number) => boolean, what: string) => {
    const r = await reader.next();
    if (!ok(r.code)) throw new Error(`SMTP ${what}: ${r.code} ${r.text}`);
    return r;
  };
  const command = (line: string, what: string, ok: (code: number) => boolean = (c) => c >= 200 && c < 300) => {
    socket.write(`${line}\r\n`);
    return expect(ok, what);
  };
  try {
    await expect((c) => c === 220, 'greeting');
    let ehlo = await command('EHLO hedgerow', 'EHLO');
    if (!server.secure) {
      if (offers(ehlo.text, 'STARTTLS')) {
        await command('STARTTLS', 'STARTTLS', (c) => c === 220);
        reader.stop();
        try {
          socket = await upgrade(socket, server);
        } catch (err) {
          throw new Error(`SMTP STARTTLS: ${trustHint(err as Error)}`);
        }
        socket.setTimeout(timeoutMs, onTimeout);
        reader = replies(socket);
        // RFC 3207: what the server said before TLS is forgotten; ask again.
        ehlo = await command('EHLO hedgerow', 'EHLO');
      } else if (server.starttls === 'required') {
        socket.write('QUIT\r\n');
        throw new Error('SMTP: the server does not offer STARTTLS and HEDGEROW_SMTP_STARTTLS is required: nothing was sent');
      } else if (server.user !== null) {
        // A password is never sent in the clear: a relay without STARTTLS gets mail only
        // without a login (a local relay), as auto's description says.
        socket.write('QUIT\r\n');
        throw new Error('SMTP: the server does not offer STARTTLS, and the login in HEDGEROW_SMTP_URL is not sent in the clear: nothing was sent (use smtps://, or a relay that offers STARTTLS)');
      }
    }
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
  } catch (err) {
    // A certificate refused on an smtps:// connection surfaces here, as the greeting's failure.
    throw server.secure && CERTIFICATE_ERROR.test((err as Error).message) && !/^SMTP /.test((err as Error).message) ? new Error(`SMTP TLS: ${trustHint(err as Error)}`) : err;
  } finally {
    socket.end();
    socket.destroy();
  }
}
